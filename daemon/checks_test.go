package daemon

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/pipeline"
	"github.com/edged-robotics/edged/replay"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// checksConfig is a replay config of the G1 recording with trace checks
// from a file and inline.
func checksConfig(t *testing.T, inline string) *config.Config {
	t.Helper()
	rules := filepath.Join(t.TempDir(), "rules.yaml")
	if err := os.WriteFile(rules, []byte("checks:\n  - name: grasped\n    formula: tr.Exists(grasp)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := config.Parse([]byte("robot_id: g1\ndata_dir: " + t.TempDir() + "\nhttp: {listen: off}\n" +
		"fsm: [{topic: /task_state, idle_states: [idle]}]\nchecks:\n  file: " + rules + "\n  rules:\n" + inline))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestChecksJudgeClosedEpisodes: the configured checks are evaluated
// when an episode closes; the verdicts are in the manifest, counted per
// check on /metrics (as Prometheus scrapes it) and listed on the status
// page.
func TestChecksJudgeClosedEpisodes(t *testing.T) {
	bag := sampledata.Path(t, "g1_ep29.bag")
	c := checksConfig(t, "    checks:\n      - name: dropped\n        formula: tr.Exists(drop)\n")
	r, err := replay.New(c, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), []string{bag}, nil); err != nil {
		t.Fatal(err)
	}
	// The page and /metrics of a daemon over the replay's stages.
	d := &Daemon{pipe: r.Pipeline()}
	ms, err := episode.List(filepath.Join(c.DataDir, episode.EpisodesDir))
	if err != nil || len(ms) != 1 {
		t.Fatalf("episodes %+v %v", ms, err)
	}
	v := ms[0].Verdicts
	if len(v) != 2 || v[0].Check != "grasped" || !v[0].Sat || v[1].Check != "dropped" || v[1].Sat || v[1].Witness == "" {
		t.Fatalf("verdicts %+v", v)
	}
	got := d.pipe.Checks()
	if len(got) != 2 || got[0] != (pipeline.CheckCount{Check: "dropped", Unsat: 1}) || got[1] != (pipeline.CheckCount{Check: "grasped", Sat: 1}) {
		t.Fatalf("violations %+v", got)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{d})
	rec := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	for _, want := range []string{`edged_check_violations_total{check="dropped"} 1`, `edged_check_violations_total{check="grasped"} 0`} {
		if !strings.Contains(rec.Body.String(), want) {
			t.Errorf("/metrics lacks %s:\n%s", want, grepLines(rec.Body.String(), "check"))
		}
	}
	// A replay serves no page: render the page's template of its data.
	var page strings.Builder
	if err := statusPage.Execute(&page, pageData{Status: d.pipe.Status().View(), Checks: d.pipe.Checks()}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{ms[0].ID + "</td><td>dropped</td><td><span class=\"bad\">UNSAT</span>",
		ms[0].ID + "</td><td>grasped</td><td><span class=\"ok\">SAT</span>", "<td>dropped</td><td>0</td><td class=\"bad\">1</td>"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("status page lacks %s:\n%s", want, page.String())
		}
	}
}

func TestChecksConfigErrors(t *testing.T) {
	for _, tc := range []struct{ inline, want string }{
		{"    checks: [{name: a, formula: 'tr.Exists(a'}]\n", "checks.rules: checks[0].formula: 1:12: expected ')'"},
		{"    checks: [{name: grasped, formula: 'tr.Exists(a)'}]\n", `checks[1].name: "grasped" is also checks[0]'s name`},
		{"    nonsense: 1\n", "checks.rules: rules: yaml"},
	} {
		c := checksConfig(t, tc.inline)
		if err := Check(c); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.inline, err, tc.want)
		}
	}
	c := checksConfig(t, "    checks: []\n")
	c.Checks.File = filepath.Join(t.TempDir(), "absent.yaml")
	if err := Check(c); err == nil || !strings.Contains(err.Error(), "checks.file") {
		t.Errorf("absent rules file: %v", err)
	}
}
