package cpuprofile

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStart(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, path, wantErr string
	}{
		{"none", "", ""},
		{"a writable file", filepath.Join(dir, "cpu.pprof"), ""},
		{"a missing directory", filepath.Join(dir, "no", "cpu.pprof"), "--cpuprofile: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stop, err := Start(tc.path, slog.New(slog.DiscardHandler))
			if tc.path == "" {
				if err != nil {
					t.Fatal(err)
				}
				stop()
				return
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			stop()
			if err := validProfile(tc.path); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// validProfile: a pprof file is a gzipped protobuf Profile; a CPU
// profile's string table names its sample and period types.
func validProfile(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("%s: not a pprof profile: %w", path, err)
	}
	raw, err := io.ReadAll(z)
	if err != nil {
		return fmt.Errorf("%s: not a pprof profile: %w", path, err)
	}
	for _, want := range []string{"samples", "count", "cpu", "nanoseconds"} {
		if !bytes.Contains(raw, []byte(want)) {
			return fmt.Errorf("%s: not a CPU profile: no %q in its string table", path, want)
		}
	}
	return nil
}
