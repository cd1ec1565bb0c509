package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/daemon"
	"github.com/edged-robotics/edged/internal/freeport"
)

// TestClipCommand: edged clip posts its reason and wait to /clip and
// prints the daemon's answer; a daemon that is not there, or that
// refuses, is an error saying so.
func TestClipCommand(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/clip" || r.FormValue("wait") != "5" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.String(), http.StatusBadRequest)
			return
		}
		status, a := http.StatusOK, daemon.ClipAnswer{Name: "clip-x.mcap", Written: true}
		if r.FormValue("reason") == "again" {
			status, a = http.StatusTooManyRequests, daemon.ClipAnswer{Skipped: "rate_limit", Error: "clip: not written: rate_limit"}
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(a)
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	out := edged(t, true, "clip", "--http", addr, "--reason", "slip", "--wait", "5s")
	var a daemon.ClipAnswer
	if err := json.Unmarshal([]byte(out), &a); err != nil || a.Name != "clip-x.mcap" || !a.Written {
		t.Errorf("answer %q: %v", out, err)
	}
	if out := edged(t, false, "clip", "--http", addr, "--reason", "again", "--wait", "5s"); !strings.Contains(out, "429") {
		t.Errorf("a refusal: %s", out)
	}
	closed := fmt.Sprintf("127.0.0.1:%d", freeport.Port(t))
	if out := edged(t, false, "clip", "--http", closed); !strings.Contains(out, "is edged run listening") {
		t.Errorf("no daemon: %s", out)
	}
}
