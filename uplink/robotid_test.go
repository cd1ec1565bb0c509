package uplink_test

import (
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/uplink"
)

// TestRobotIDRoundTrip: every robot_id the one rule accepts gets
// episode ids (any name, any start, Store.Begin's -2 suffix) that the
// receiver's rule (episode.CheckID) gives back to that robot; the ids
// it refuses because of an episode time in them are ones whose
// episodes would never ship.
func TestRobotIDRoundTrip(t *testing.T) {
	tests := []struct {
		id     string
		accept bool
	}{
		{"arm-01", true},
		{"a", true},
		{"arm.v2_b-3", true},
		{"20260101T000000.000Z", true},      // no leading '-': not an id's time
		{"arm-20260101T000000.000Zx", true}, // not followed by '-' or the end
		{"arm-20260101T000000.00Z", true},   // not the time's form
		{"arm-", true},                      // ids read "arm--TIME": robot "arm-"
		{strings.Repeat("r", uplink.MaxRobotID), true},
		{"arm-20260101T000000.000Z", false},
		{"arm-20260101T000000.000Z-x", false},
		{"x-19700101T000000.000Z-20260101T000000.000Z", false},
		{"arm-99999999T999999.999Z-", false},
	}
	names := []string{"", "pick", episode.SessionName, "a/b c", strings.Repeat("n", 200)}
	starts := []time.Time{time.Unix(0, 0), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)}
	for _, tt := range tests {
		err := uplink.CheckRobotID(tt.id)
		if (err == nil) != tt.accept {
			t.Errorf("CheckRobotID(%q) = %v, want accepted %v", tt.id, err, tt.accept)
			continue
		}
		if err != nil && !strings.HasPrefix(err.Error(), "robot_id: ") {
			t.Errorf("CheckRobotID(%q) = %v, want an error naming robot_id", tt.id, err)
		}
		allShip := true
		for _, name := range names {
			for _, start := range starts {
				id := episode.NewID(tt.id, start, name)
				for _, shipped := range []string{id, id + "-2"} { // Store.Begin's suffix for a taken id
					if err := episode.CheckID(tt.id, shipped); err != nil {
						allShip = false
						if tt.accept {
							t.Errorf("robot_id %q accepted, but its episode id %q is refused: %v", tt.id, shipped, err)
						}
					}
				}
			}
		}
		if !tt.accept && allShip {
			t.Errorf("robot_id %q refused, but every id it makes ships", tt.id)
		}
	}
}
