package replay

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayFlagErrorsNameTheFlag: errors about values given as replay
// flags name the flag, not the config field they override (issue 10),
// and a relative --out is a path like any other.
func TestReplayFlagErrorsNameTheFlag(t *testing.T) {
	c, err := Config(Flags{Out: "out", FSMType: "string"})
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
		// still name the flag: replay checks with pipeline.Check
		{"broker credentials", "", "tcp://u:hunter2@b:1883", "", "string", "--broker: must not hold credentials", "hunter2"},
		{"fsm type field", "", "", "/s", "field", "--fsm.field: required", "fsm[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Config(Flags{Out: tc.out, Broker: tc.broker, FSMTopic: tc.fsm, FSMType: tc.fsmType})
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), tc.notWant) {
				t.Fatalf("got %v, want %q and no %q", err, tc.want, tc.notWant)
			}
		})
	}
}
