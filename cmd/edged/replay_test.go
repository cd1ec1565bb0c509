package main

import (
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
		{"fsm topic", "", "", "s", "string", "--fsm: must be a global ROS name", "fsm[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := replayConfig("", tc.out, tc.broker, tc.fsm, tc.fsmType, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.notWant) {
				t.Fatalf("got %v, want %q and no %q", err, tc.want, tc.notWant)
			}
		})
	}
}
