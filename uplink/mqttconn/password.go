package mqttconn

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxPasswordFileBytes caps a password file: it holds one line, and a
// larger file is a wrong path (a log, a binary), not a password.
const MaxPasswordFileBytes = 64 << 10

// ReadPasswordFile reads the broker password from path, without the
// trailing line end an editor leaves. field names the setting that gave
// path (uplink.password_file, edged sink's --password-file), so the
// error says what to fix. It is the one reader of a password file: the
// robot's uplink and the sink read theirs alike.
func ReadPasswordFile(field, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w (check the file exists and edged may read it)", field, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxPasswordFileBytes+1))
	if err != nil {
		return "", fmt.Errorf("%s: %w (check the file exists and edged may read it)", field, err)
	}
	if len(b) > MaxPasswordFileBytes {
		return "", fmt.Errorf("%s: %s is over %d KiB: give the file that holds only the password", field, path, MaxPasswordFileBytes>>10)
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}
