package fsm

import "testing"

// The action's name labels its goals' segments: ROS 2 puts the status
// under /ACTION/_action/status (it was labeled "pick/_action").
func TestActionName(t *testing.T) {
	for topic, want := range map[string]string{
		"/pick/status": "pick", "/arm/pick/_action/status": "arm/pick", "/pick/_action/status": "pick", "pick": "pick",
	} {
		if got := actionName(topic); got != want {
			t.Errorf("actionName(%q) = %q, want %q", topic, got, want)
		}
	}
}
