// Package mcaptest reads MCAP files with Foxglove's own TypeScript
// reader (@mcap/core from npm, the version ../shared/data/ros2 was
// checked with), for the tests of what edged writes (bag/mcap's writer,
// clip's clips): Read runs mcapcore.cjs under node and returns what it
// found, every message also decoded with its channel's schema by the
// deserializers Foxglove Studio uses (View.Decoded). Tests only; it
// skips a test when node or npm is missing or npm cannot install the
// packages (offline).
package mcaptest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Packages is what mcapcore.cjs needs from npm, pinned: Foxglove's
// reader, the decompressors Foxglove's tools use, and Foxglove Studio's
// ROS message deserializers (the definition parser, ROS1 and CDR), the
// versions ../shared/data/ros2 was made and checked with.
var Packages = []string{"@mcap/core@2.2.2", "@foxglove/wasm-zstd@1.0.1", "@foxglove/wasm-lz4@1.0.2",
	"@foxglove/rosmsg@5.0.5", "@foxglove/rosmsg-serialization@2.0.4", "@foxglove/rosmsg2-serialization@3.1.0"}

var core struct {
	once       sync.Once
	modules    string // a node_modules directory
	skip, fail string
}

// Modules installs Packages once into the user's cache directory
// (CACHE/edged/npm/mcap-HASH, HASH of Packages: reused by later runs,
// installed anew when Packages change) and returns its node_modules; it
// skips the test when node or npm is missing or npm cannot install them
// (offline).
func Modules(t testing.TB) string {
	t.Helper()
	core.once.Do(install)
	if core.fail != "" {
		t.Fatal(core.fail)
	}
	if core.skip != "" {
		t.Skip(core.skip)
	}
	return core.modules
}

func install() {
	for _, bin := range []string{"node", "npm"} {
		if _, err := exec.LookPath(bin); err != nil {
			core.skip = fmt.Sprintf("%s not installed: Foxglove's @mcap/core reader needs node and npm (Debian nodejs, npm; make deps)", bin)
			return
		}
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "edged", "npm", installName())
	core.modules = filepath.Join(dir, "node_modules")
	if installed(core.modules) {
		return
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		core.fail = err.Error()
		return
	}
	// install beside it and rename into place, so a concurrent test
	// process never sees half an install
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	if err != nil {
		core.fail = err.Error()
		return
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append([]string{"install", "--no-audit", "--no-fund", "--no-save", "--no-package-lock", "--prefix", tmp}, Packages...)
	if out, err := exec.CommandContext(ctx, "npm", args...).CombinedOutput(); err != nil {
		core.skip = fmt.Sprintf("npm could not install %v (offline?): %v\n%s", Packages, err, tail(out, 800))
		return
	}
	if err := os.Rename(tmp, dir); err != nil && !installed(core.modules) {
		core.fail = fmt.Sprintf("installing %v into %s: %v", Packages, dir, err)
	}
}

// installName names the install of exactly Packages.
func installName() string {
	sum := sha256.Sum256([]byte(strings.Join(Packages, " ")))
	return fmt.Sprintf("mcap-%x", sum[:6])
}

// installed: every package of Packages is in modules.
func installed(modules string) bool {
	for _, p := range Packages {
		name := p[:strings.LastIndex(p, "@")] // "@scope/name@version"
		if _, err := os.Stat(filepath.Join(modules, filepath.FromSlash(name), "package.json")); err != nil {
			return false
		}
	}
	return true
}

func tail(b []byte, n int) []byte { return b[max(0, len(b)-n):] }

// Metadata is a Metadata record as @mcap/core read it.
type Metadata struct {
	Name     string
	Metadata map[string]string
}

// Schema is a Schema record as @mcap/core read it.
type Schema struct {
	ID             uint16
	Name, Encoding string
	Data           []byte
}

// View is what mcapcore.cjs prints.
type View struct {
	Indexed struct {
		Profile, Library string
		Compressions     []string
		Schemas          []Schema
		Channels         []struct {
			ID                     uint16
			SchemaID               uint16 `json:"schemaId"`
			Topic, MessageEncoding string
			Metadata               map[string]string
		}
		Statistics *struct {
			MessageCount              string
			ChunkCount, MetadataCount int
			ChannelMessageCounts      map[string]string
		}
		DataCrcMatches    bool
		Messages, Reverse []Message
		ByTopic           map[string]int
		Metadata          []Metadata
	}
	// Decoded is, per topic, what Foxglove's deserializers made of its
	// messages (read from the summary's indexes, in log-time order).
	Decoded map[string]Decoded
	Stream  struct {
		Records  map[string]int
		Messages []Message
		Done     bool
	}
}

// Decoded is what mcapcore.cjs made of one topic's messages with its
// channel's schema: ros1msg schemas parsed by @foxglove/rosmsg and ros1
// messages read by @foxglove/rosmsg-serialization, ros2msg ones parsed
// as ROS 2 and cdr messages read by @foxglove/rosmsg2-serialization,
// json messages by JSON.parse.
type Decoded struct {
	Count  int    // messages decoded
	Failed int    // messages that did not decode (or of no known encoding)
	Error  string // the first failure's
	// First is the first message decoded, as JSON: a Uint8Array as
	// base64, other typed arrays as arrays, a BigInt as a number when
	// it is exact, else a decimal string, NaN and infinities null.
	First json.RawMessage
}

// Message is one message as mcapcore.cjs prints it: channel id,
// sequence, log time, publish time, data (base64).
type Message [5]any

// Fields parses m.
func (m Message) Fields() (channel uint16, seq uint32, logTime, publishTime uint64, data []byte, err error) {
	lt, err1 := strconv.ParseUint(fmt.Sprint(m[2]), 10, 64)
	pt, err2 := strconv.ParseUint(fmt.Sprint(m[3]), 10, 64)
	data, err3 := base64.StdEncoding.DecodeString(fmt.Sprint(m[4]))
	ch, ok1 := m[0].(float64)
	sq, ok2 := m[1].(float64)
	if err1 != nil || err2 != nil || err3 != nil || !ok1 || !ok2 {
		return 0, 0, 0, 0, nil, fmt.Errorf("message %v does not parse", m)
	}
	return uint16(ch), uint32(sq), lt, pt, data, nil
}

// script is mcapcore.cjs beside this file, wherever the test runs.
func script() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "mcapcore.cjs")
}

// Read runs mcapcore.cjs over file (the bytes of an MCAP file).
func Read(t testing.TB, file []byte) View {
	t.Helper()
	path := filepath.Join(t.TempDir(), "written.mcap")
	if err := os.WriteFile(path, file, 0o644); err != nil {
		t.Fatal(err)
	}
	return ReadFile(t, path)
}

// ReadFile runs mcapcore.cjs over the MCAP file at path.
func ReadFile(t testing.TB, path string) View {
	t.Helper()
	modules := Modules(t)
	cmd := exec.Command("node", script(), path)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("@mcap/core rejects the file: %v\n%s", err, stderr.Bytes())
	}
	var v View
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("mcapcore.cjs output: %v", err)
	}
	return v
}
