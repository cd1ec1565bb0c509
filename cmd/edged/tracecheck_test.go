package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/tracecheck"
)

// simData replays the generated demo episode into a data_dir.
func simData(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("/usr/bin/python3 with rosbag needed to generate the sample episode (make deps)")
	}
	tmp := t.TempDir()
	bag := filepath.Join(tmp, "sim.bag")
	if out, err := exec.Command("/usr/bin/python3", "../../scripts/sim/sim_robot.py", "--bag", bag).CombinedOutput(); err != nil {
		t.Skipf("cannot generate the sample bag (python3-rosbag missing? make deps): %v\n%s", err, out)
	}
	data := filepath.Join(tmp, "data")
	edged(t, true, "replay", "-q", "--out", data, "--fsm", "/task/state", "--idle", "IDLE", bag)
	return data
}

// g1Data replays the real G1 recording into a data_dir.
func g1Data(t *testing.T) string {
	t.Helper()
	bag := sampledata.Path(t, "g1_ep29.bag")
	data := filepath.Join(t.TempDir(), "data")
	edged(t, true, "replay", "-q", "--out", data, "--fsm", "/task_state", "--idle", "idle", bag)
	return data
}

func writeRules(t *testing.T, rules string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(p, []byte(rules), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

type checkJSON struct {
	Episodes []struct {
		ID      string `json:"episode"`
		Results []struct {
			Check    string `json:"check"`
			Sat      bool   `json:"sat"`
			Sentence string `json:"sentence"`
			Witness  []struct {
				Element int `json:"element"`
			} `json:"witness"`
		} `json:"results"`
	} `json:"episodes"`
	Summary *struct {
		Checks []struct {
			Check    string  `json:"check"`
			PassRate float64 `json:"pass_rate"`
		} `json:"checks"`
	} `json:"summary"`
}

// verdicts runs edged check --json and returns check -> sat.
func verdicts(t *testing.T, args ...string) (map[string]bool, checkJSON) {
	t.Helper()
	var got checkJSON
	out := edged(t, true, append([]string{"check", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Episodes) != 1 {
		t.Fatalf("check --json: %v\n%s", err, out)
	}
	m := map[string]bool{}
	for _, r := range got.Episodes[0].Results {
		m[r.Check] = r.Sat
		if r.Sentence == "" || len(r.Witness) == 0 {
			t.Errorf("%s: no witness", r.Check)
		}
	}
	return m, got
}

func TestCheckGeneratedEpisode(t *testing.T) {
	data := simData(t)
	rules := writeRules(t, `
checks:
  - name: grasp-then-lift
    formula: tr.AfterFirst(grasp).Exists(lift) and not tr.BeforeFirst(grasp).Exists(lift)
  - name: place-after-last-carry
    formula: tr.AfterLast(carry).Exists(place)
  - name: reach-after-place
    formula: tr.AfterFirst(place).Exists(reach)
  - name: scoped-out
    instruction: fetch the mail
    formula: tr.Exists(x)
`)
	got, js := verdicts(t, "--rules", rules, filepath.Join(data, "episodes"))
	want := map[string]bool{"grasp-then-lift": true, "place-after-last-carry": true, "reach-after-place": false}
	if len(got) != len(want) {
		t.Fatalf("verdicts %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: sat %v, want %v", k, got[k], v)
		}
	}
	if js.Summary == nil || len(js.Summary.Checks) != 3 {
		t.Fatalf("a store gives a summary of 3 checks: %+v", js.Summary)
	}
	out := edged(t, true, "check", "--rules", rules, data)
	for _, w := range []string{"UNSAT  reach-after-place", "PASS RATE", "100.0%"} {
		if !strings.Contains(out, w) {
			t.Errorf("text output lacks %q:\n%s", w, out)
		}
	}
	// --fail-on-unsat: exit 1 with the UNSAT verdict, 0 when all hold.
	if out := edged(t, false, "check", "--fail-on-unsat", "--rules", rules, data); !strings.Contains(out, "1 UNSAT verdict(s)") {
		t.Errorf("--fail-on-unsat with an UNSAT check: %s", out)
	}
	holds := writeRules(t, "checks: [{name: a, formula: 'tr.Exists(grasp)'}]")
	edged(t, true, "check", "--fail-on-unsat", "--rules", holds, data)
	bad := writeRules(t, "checks: [{name: a, formula: 'tr.Exists(a)'}, {name: b, formula: 'tr.AfterFirst(x).Exists(y'}]")
	if out := edged(t, false, "check", "--rules", bad, data); !strings.Contains(out, "checks[1].formula: 1:26: expected ')'") {
		t.Errorf("bad formula: %s", out)
	}
}

func TestCheckG1Episode(t *testing.T) {
	data := g1Data(t)
	rules := writeRules(t, `
checks:
  - name: aligned-before-grasp
    formula: tr.BeforeFirst(grasp).Exists(align_pregrasp)
  - name: carry-after-grasp
    formula: tr.AfterFirst(grasp).Exists(carry(.*))
  - name: never-dropped
    formula: not tr.Exists(drop)
map:
  lift_and_carry: carry(object)
`)
	got, _ := verdicts(t, "--rules", rules, filepath.Join(data, "episodes"))
	want := map[string]bool{"aligned-before-grasp": true, "carry-after-grasp": true, "never-dropped": true}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: sat %v, want %v", k, got[k], v)
		}
	}
}

// TestCheckStoreWhileRetentionDeletes: an episode deleted between the
// store's listing and its reading (edged run's retention, on a live
// robot's data_dir) is left out and named; the rest is checked and
// summarized. It failed the whole check before.
func TestCheckStoreWhileRetentionDeletes(t *testing.T) {
	data := simData(t)
	sd := episode.StoreDir(data)
	ms, err := episode.List(sd)
	if err != nil || len(ms) != 1 {
		t.Fatalf("episodes %+v %v", ms, err)
	}
	kept := ms[0].ID
	gone := strings.Replace(kept, "replay-", "replay-0", 1) // listed first
	if err := os.CopyFS(filepath.Join(sd, gone), os.DirFS(filepath.Join(sd, kept))); err != nil {
		t.Fatal(err)
	}
	rules, err := tracecheck.ParseRules([]byte("checks: [{name: placed, formula: 'tr.AfterFirst(grasp).Exists(place)'}]"))
	if err != nil {
		t.Fatal(err)
	}
	load := func(dir, ref string) (*episode.Episode, error) {
		if ref == gone { // retention removes it just now
			if err := os.RemoveAll(filepath.Join(dir, ref)); err != nil {
				t.Fatal(err)
			}
		}
		return episode.Load(dir, ref)
	}
	var rep collected
	if _, err := runChecks(rules, "", data, load, &rep); err != nil {
		t.Fatalf("check of a store while an episode is deleted: %v", err)
	}
	if len(rep.Episodes) != 1 || rep.Episodes[0].ID != kept || len(rep.Skipped) != 1 || rep.Skipped[0] != gone {
		t.Fatalf("checked %+v, skipped %v; want %s checked and %s left out", rep.Episodes, rep.Skipped, kept, gone)
	}
	if s := rep.Summary; s == nil || len(s.Checks) != 1 || s.Checks[0].Episodes != 1 || s.Checks[0].PassRate != 1 {
		t.Fatalf("summary %+v", rep.Summary)
	}
	// Any other unreadable episode is still an error.
	if _, err := runChecks(rules, "", data, func(string, string) (*episode.Episode, error) {
		return nil, errors.New("disk read error")
	}, &collected{}); err == nil {
		t.Error("an unreadable episode that exists: no error")
	}
}

// An episode read with problems (here a corrupt manifest.json, rebuilt
// from the records) is checked, and its problems are warnings in both
// outputs: --json left them out while the text printed them.
func TestCheckReportsEpisodeProblems(t *testing.T) {
	_, epDir := recordEpisode(t, []segSpec{{"grasp", 0, 1}, {"lift", 1, 2}})
	if err := os.WriteFile(filepath.Join(epDir, "manifest.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	rules := writeRules(t, "checks: [{name: lifted, formula: 'tr.AfterFirst(grasp).Exists(lift)'}]")
	text := edged(t, true, "check", "--rules", rules, epDir)
	if !strings.Contains(text, "warning: ") || !strings.Contains(text, "SAT  lifted") {
		t.Fatalf("text output lacks the verdict or the warning:\n%s", text)
	}
	var got struct {
		Episodes []struct {
			Problems []string `json:"problems"`
		} `json:"episodes"`
	}
	out := edged(t, true, "check", "--json", "--rules", rules, epDir)
	if err := json.Unmarshal([]byte(out), &got); err != nil || len(got.Episodes) != 1 {
		t.Fatalf("check --json: %v\n%s", err, out)
	}
	if p := got.Episodes[0].Problems; len(p) == 0 || !strings.Contains(text, "warning: "+p[0]) {
		t.Fatalf("--json problems %q, want the text output's warnings:\n%s", p, text)
	}
	// A sound episode has an empty list, not a missing key.
	_, sound := recordEpisode(t, []segSpec{{"grasp", 0, 1}})
	if out := edged(t, true, "check", "--json", "--rules", rules, sound); !strings.Contains(out, `"problems": []`) {
		t.Errorf("a sound episode's --json lacks \"problems\": []:\n%s", out)
	}
}
