package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayFlagErrorsNameTheFlag: errors about values given as replay
// flags name the flag, not the config field they override (issue 10),
// and a relative --out is a path like any other.
func TestReplayFlagErrorsNameTheFlag(t *testing.T) {
	c, err := replayConfig("", "out", "", "", "string", nil)
	if err != nil {
		t.Fatalf("--out out: %v", err)
	}
	if want, _ := filepath.Abs("out"); c.DataDir != want {
		t.Fatalf("--out out: data_dir %q, want %q", c.DataDir, want)
	}
	for _, tc := range []struct {
		name                            string
		out, broker, fsm, fsmType, want string
		notWant                         string
	}{
		{"broker scheme", "", "http://b:1", "", "string", "--broker: scheme", "uplink.broker"},
		{"broker port", "", "tcp://b", "", "string", "--broker: needs a port", "uplink.broker"},
		{"fsm type", "", "", "/s", "magic", "--fsm-type: must be", "fsm[0]"},
		{"fsm topic", "", "", "s 1", "string", `--fsm: "s 1" is not a ROS graph name`, "fsm[0]"},
		// rules that moved to their components (uplink/mqttconn, fsm)
		// still name the flag: replay checks with daemon.Check
		{"broker credentials", "", "tcp://u:hunter2@b:1883", "", "string", "--broker: must not hold credentials", "hunter2"},
		{"fsm type field", "", "", "/s", "field", "--fsm.field: required", "fsm[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := replayConfig("", tc.out, tc.broker, tc.fsm, tc.fsmType, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.notWant) {
				t.Fatalf("got %v, want %q and no %q", err, tc.want, tc.notWant)
			}
		})
	}
}

// TestReplayDamagedBagExitStatus: a bag cut at half makes edged replay
// warn (naming the bag and offset) and exit non-zero, unless
// --keep-going (issue 10: it exited 0 with 331 of 670 messages).
func TestReplayDamagedBagExitStatus(t *testing.T) {
	const sample = "/work/shared/data/g1_ep29.bag"
	b, err := os.ReadFile(sample)
	if err != nil {
		t.Skipf("sample bag %s absent (it lives outside the repository): %v", sample, err)
	}
	dir := t.TempDir()
	half := filepath.Join(dir, "half.bag")
	if err := os.WriteFile(half, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	out := edged(t, false, "replay", "-q", "--out", filepath.Join(dir, "a"), half)
	if !strings.Contains(out, "damaged input") || !strings.Contains(out, half) || !strings.Contains(out, "offset") {
		t.Fatalf("want a warning naming the bag and an offset:\n%s", out)
	}
	out = edged(t, true, "replay", "-q", "--keep-going", "--out", filepath.Join(dir, "b"), half)
	if !strings.Contains(out, "damaged input") || !strings.Contains(out, "replayed ") {
		t.Fatalf("--keep-going: want the warning and the summary:\n%s", out)
	}
}
