package policy

import (
	"errors"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/internal/fielderr"
)

// TestCheckGoalSources: on_goal_failure, when clips are on, needs an
// actionlib fsm source; the error names the field and what to do.
func TestCheckGoalSources(t *testing.T) {
	for _, tc := range []struct {
		name             string
		enabled, on, has bool
		wantErr          bool
	}{
		{"on without a source", true, true, false, true},
		{"on with a source", true, true, true, false},
		{"off without a source", true, false, false, false},
		{"clips disabled", false, true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Default()
			c.Enabled, c.OnGoalFailure = tc.enabled, tc.on
			err := c.CheckGoalSources(tc.has)
			var fe *fielderr.Error
			switch {
			case !tc.wantErr && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.wantErr && (!errors.As(err, &fe) || !strings.Contains(err.Error(), "clips.on_goal_failure") ||
				!strings.Contains(err.Error(), "fsm[].type: actionlib")):
				t.Fatalf("error %v, want a clips.on_goal_failure field error saying what to add", err)
			}
		})
	}
}
