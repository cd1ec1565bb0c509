package store

import (
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
)

// TestStoreIDsFollowTheRule: every id Begin makes (with names, with
// collisions) belongs to its robot, and a session id does too.
func TestStoreIDsFollowTheRule(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	start := time.Date(2023, 11, 14, 22, 13, 20, 0, time.UTC)
	for _, name := range []string{"", "", "pick the cups/2", "..", strings.Repeat("n", 300)} {
		w, err := s.Begin(Begin{Robot: "arm-01", Name: name, Start: start})
		if err != nil {
			t.Fatal(err)
		}
		if err := episode.CheckID("arm-01", w.ID()); err != nil {
			t.Errorf("name %.20q: %v", name, err)
		}
		if err := w.Close(start, episode.Completed, episode.EndIdle); err != nil {
			t.Fatal(err)
		}
	}
	if err := episode.CheckID("arm-01", episode.NewID("arm-01", start, episode.SessionName)); err != nil {
		t.Error(err)
	}
}
