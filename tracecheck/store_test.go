package tracecheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
)

// recordStore records one closed episode per label list, of robot
// arm-0N, into a new data_dir's store, and returns the data_dir and
// the episode directories.
func recordStore(t *testing.T, episodes ...[]string) (dataDir string, dirs []string) {
	t.Helper()
	dataDir = t.TempDir()
	s, err := epstore.Open(filepath.Join(dataDir, episode.EpisodesDir), epstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, labels := range episodes {
		start := t0.Add(time.Duration(i) * time.Hour)
		w, err := s.Begin(epstore.Begin{Robot: fmt.Sprintf("arm-%02d", i), Start: start, Instruction: "pick"})
		if err != nil {
			t.Fatal(err)
		}
		for k, l := range labels {
			at := start.Add(time.Duration(k) * time.Second)
			if err := w.Segment(episode.Segment{Index: k, Start: at, End: at.Add(time.Second), StartSec: float64(k),
				EndSec: float64(k + 1), Label: l, Source: "/task/state", Kind: "string", Outcome: episode.Completed}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(start.Add(time.Duration(len(labels))*time.Second), episode.Completed, episode.EndIdle); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, w.Dir())
	}
	return dataDir, dirs
}

// kept is a Reporter that keeps the whole report.
type kept struct {
	episodes []EpisodeReport
	summary  *Summary
	skipped  []string
	ended    bool
}

func (k *kept) Episode(e EpisodeReport) error { k.episodes = append(k.episodes, e); return nil }
func (k *kept) End(s *Summary, skipped []string) error {
	k.summary, k.skipped, k.ended = s, skipped, true
	return nil
}

// TestCheck: a store is judged episode by episode with a summary; an
// episode directory, or an id in a store, alone and without one; an
// episode deleted while checking is left out and named; any other
// unreadable episode, or an empty store, is an error.
func TestCheck(t *testing.T) {
	rules, err := ParseRules([]byte("checks: [{name: lifted, formula: 'tr.AfterFirst(grasp).Exists(lift)'}]"))
	if err != nil {
		t.Fatal(err)
	}
	data, dirs := recordStore(t, []string{"grasp", "lift"}, []string{"grasp"}, []string{"lift", "grasp"})
	ids := make([]string, len(dirs))
	for i, d := range dirs {
		ids[i] = filepath.Base(d)
	}
	deleting := func(dir, ref string) (*episode.Episode, error) {
		if ref == ids[1] {
			if err := os.RemoveAll(filepath.Join(dir, ref)); err != nil {
				t.Fatal(err)
			}
		}
		return episode.Load(dir, ref)
	}
	failing := func(string, string) (*episode.Episode, error) { return nil, errors.New("disk read error") }
	for _, tc := range []struct {
		name      string
		dir, ref  string
		load      Loader
		checked   []string
		unsat     int
		summary   bool
		skipped   []string
		errSubstr string
	}{
		{"a data_dir", "", data, episode.Load, ids, 2, true, nil, ""},
		{"a store", "", filepath.Join(data, episode.EpisodesDir), episode.Load, ids, 2, true, nil, ""},
		{"an episode directory", "", dirs[0], episode.Load, ids[:1], 0, false, nil, ""},
		{"an id in a data_dir", data, ids[2], episode.Load, ids[2:], 1, false, nil, ""},
		{"deleted while checking", "", data, deleting, []string{ids[0], ids[2]}, 1, true, ids[1:2], ""},
		{"unreadable", "", data, failing, nil, 0, false, nil, "disk read error"},
		{"an empty store", "", t.TempDir(), episode.Load, nil, 0, false, nil, "check: no episodes in "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var rep kept
			unsat, err := rules.Check(tc.dir, tc.ref, tc.load, &rep)
			if tc.errSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errSubstr) {
					t.Fatalf("err %v, want %q", err, tc.errSubstr)
				}
				return
			}
			if err != nil || !rep.ended || unsat != tc.unsat {
				t.Fatalf("unsat %d, ended %v, err %v; want %d", unsat, rep.ended, err, tc.unsat)
			}
			var got []string
			for _, e := range rep.episodes {
				got = append(got, e.ID)
			}
			if strings.Join(got, ",") != strings.Join(tc.checked, ",") || strings.Join(rep.skipped, ",") != strings.Join(tc.skipped, ",") {
				t.Fatalf("checked %v, skipped %v; want %v, %v", got, rep.skipped, tc.checked, tc.skipped)
			}
			if (rep.summary != nil) != tc.summary {
				t.Fatalf("summary %+v, want one: %v", rep.summary, tc.summary)
			}
			if rep.summary != nil && (len(rep.summary.Checks) != 1 || rep.summary.Checks[0].Episodes != len(tc.checked)) {
				t.Fatalf("summary %+v", rep.summary)
			}
		})
	}
	// the store itself is what it was: unchanged by the check but for
	// the episode the test deleted
	if _, err := os.Stat(dirs[0]); err != nil {
		t.Fatal(err)
	}
}

// TestReports: the JSON report is one document, the same as encoding
// it whole (episodes, then summary and skipped when there are any),
// and the text report has each verdict, warning and pass rate.
func TestReports(t *testing.T) {
	rules, err := ParseRules([]byte(aliceRules))
	if err != nil {
		t.Fatal(err)
	}
	yes, _ := rules.Report(ep("lunch", "GOTO_OFFICE", "ASK_LUNCH", "say(meet)"))
	no, _ := rules.Report(ep("lunch", "GOTO_OFFICE", "ASK_LUNCH"))
	no.Problems = []string{"segments.rec: a torn tail"}
	sum := Summary{Checks: []Rate{{Check: "alice-yes", Episodes: 2, Sat: 1, PassRate: 0.5}}}
	for _, tc := range []struct {
		name     string
		episodes []EpisodeReport
		summary  *Summary
		skipped  []string
	}{
		{"none", nil, nil, nil},
		{"one", []EpisodeReport{yes}, nil, nil},
		{"a store", []EpisodeReport{yes, no}, &sum, []string{"arm-01-gone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var js bytes.Buffer
			var text bytes.Buffer
			jr := &JSONReport{W: &js}
			tr := TextReport{W: tabwriter.NewWriter(&text, 0, 4, 2, ' ', 0)}
			for _, e := range tc.episodes {
				if err := jr.Episode(e); err != nil {
					t.Fatal(err)
				}
				if err := tr.Episode(e); err != nil {
					t.Fatal(err)
				}
			}
			if err := jr.End(tc.summary, tc.skipped); err != nil {
				t.Fatal(err)
			}
			if err := tr.End(tc.summary, tc.skipped); err != nil {
				t.Fatal(err)
			}
			whole := struct {
				Episodes []EpisodeReport `json:"episodes"`
				Summary  *Summary        `json:"summary,omitempty"`
				Skipped  []string        `json:"skipped,omitempty"`
			}{nonNil(tc.episodes), tc.summary, tc.skipped}
			var want bytes.Buffer
			enc := json.NewEncoder(&want)
			enc.SetIndent("", "  ")
			if err := enc.Encode(whole); err != nil {
				t.Fatal(err)
			}
			if js.String() != want.String() {
				t.Errorf("JSON report:\n%s\nwant:\n%s", js.String(), want.String())
			}
			for _, e := range tc.episodes {
				for _, r := range e.Results {
					if !hasLine(text.String(), satWord(r.Sat), r.Check) {
						t.Errorf("text lacks %s %s:\n%s", satWord(r.Sat), r.Check, text.String())
					}
				}
				for _, p := range e.Problems {
					if !strings.Contains(text.String(), "warning: "+p) {
						t.Errorf("text lacks the warning %q:\n%s", p, text.String())
					}
				}
			}
			if tc.summary != nil && !hasLine(text.String(), "alice-yes", "2", "1", "50.0%") {
				t.Errorf("text lacks the pass rate:\n%s", text.String())
			}
			for _, id := range tc.skipped {
				if !strings.Contains(text.String(), id+"  left out") {
					t.Errorf("text does not name %s left out:\n%s", id, text.String())
				}
			}
		})
	}
}

// hasLine reports whether text has a line whose first fields are these.
func hasLine(text string, fields ...string) bool {
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) >= len(fields) && strings.Join(f[:len(fields)], " ") == strings.Join(fields, " ") {
			return true
		}
	}
	return false
}
