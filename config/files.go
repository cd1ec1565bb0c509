package config

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/edged-robotics/edged/uplink/mqttconn"
)

// CheckFiles is the I/O step of validation, kept apart from Validate
// (which does none): every file the config names (uplink.password_file,
// uplink.ca_file, uplink.cert_file, uplink.key_file, spelled by
// mqttconn.UplinkKeys; checks.file) must be a regular file that this
// process can open and read, and every ros2.msg_dirs entry a directory
// it can list (its .msg files are parsed by daemon.Check, which loads
// them as run does). `edged config check` and
// `edged run` both call it (through daemon.Check), so a config that
// passes the check does not fail at start for a missing file. Run the
// check as the daemon's user: permissions are checked as the caller's.
// Like Validate it reports every problem, each naming the field.
func (c *Config) CheckFiles() error {
	var p problems
	for _, f := range []struct{ field, path string }{
		{mqttconn.UplinkKeys.PasswordFile, c.Uplink.PasswordFile},
		{mqttconn.UplinkKeys.CAFile, c.Uplink.CAFile},
		{mqttconn.UplinkKeys.CertFile, c.Uplink.CertFile},
		{mqttconn.UplinkKeys.KeyFile, c.Uplink.KeyFile},
		{"checks.file", c.Checks.File},
	} {
		if f.path == "" {
			continue
		}
		if err := readable(f.path); err != nil {
			p.add(f.field, "%v (fix the path, or the file's permissions for edged's user)", err)
		}
	}
	for _, dir := range c.ROS2.MsgDirs {
		if err := isDir(dir); err != nil {
			p.add("ros2.msg_dirs", "%v (fix the path, or the directory's permissions for edged's user)", err)
		}
	}
	if len(p) == 0 {
		return nil
	}
	return &ValidationError{Problems: p}
}

// isDir checks that path is a directory this process may list.
func isDir(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", path)
	}
	_, err = f.ReadDir(1)
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// readable opens path and reads one byte: it must be a non-empty
// regular file this process may read.
func readable(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%s is not a regular file", path)
	}
	var b [1]byte
	if _, err := f.Read(b[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("%s is empty", path)
		}
		return err
	}
	return nil
}
