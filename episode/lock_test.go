package episode

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestLockStore: one exclusive writer, or any number of sharing sinks,
// never both; a refusal names the exclusive holder's pid.
func TestLockStore(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second bool // shared
		ok            bool
	}{
		{"exclusive, then exclusive", false, false, false},
		{"exclusive, then shared", false, true, false},
		{"shared, then exclusive", true, false, false},
		{"shared, then shared", true, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first, err := LockStore(dir, tc.first)
			if err != nil {
				t.Fatal(err)
			}
			defer first.Close()
			second, err := LockStore(dir, tc.second)
			if tc.ok {
				if err != nil {
					t.Fatalf("second lock: %v", err)
				}
				second.Close()
				return
			}
			if !errors.Is(err, ErrLocked) {
				t.Fatalf("second lock: %v, want ErrLocked", err)
			}
			if pid := "pid " + strconv.Itoa(os.Getpid()); !tc.first && !strings.Contains(err.Error(), pid) {
				t.Errorf("%v does not name the holder (%s)", err, pid)
			}
		})
	}
}
