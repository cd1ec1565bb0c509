package daemon

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/rostest"
)

// TestReloadAddsACameraAndKeepsTheEpisode: a reload that adds a camera
// subscribes it without closing the open episode.
func TestReloadAddsACameraAndKeepsTheEpisode(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster and rospy; skipped with -short")
	}
	m := rostest.StartMaster(t)
	m.Publish("--name", "fsm_pub", "--topic", "/task/state", "--kind", "string", "--rate", "20")
	m.Publish("--name", "cam_a_pub", "--topic", "/cam_a/compressed", "--kind", "compressed", "--rate", "10")
	m.Publish("--name", "cam_b_pub", "--topic", "/cam_b/compressed", "--kind", "compressed", "--rate", "10")
	dir := t.TempDir()
	yaml := func(cams string) string {
		return fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {master_uri: %q, host: 127.0.0.1}\nhttp: {listen: \"off\"}\n"+
			"joints: [{topic: /joint_states}]\ncameras: [%s]\nfsm: [{topic: /task/state, idle_states: [IDLE]}]\n",
			filepath.Join(dir, "data"), m.URI, cams)
	}
	cfg := parseConfig(t, yaml("{topic: /cam_a/compressed}"))
	next := yaml("{topic: /cam_a/compressed}, {topic: /cam_b/compressed}")
	reload := make(chan struct{})
	d, run := runDaemon(t, cfg, Options{Reload: reload,
		LoadConfig: func() (*config.Config, error) { return config.Parse([]byte(next)) }})

	rostest.WaitFor(t, 30*time.Second, "an episode open", d.pipe.Status().EpisodeOpen)
	before := d.pipe.Status().View().Episode.ID
	reload <- struct{}{}
	rostest.WaitFor(t, 30*time.Second, "frames from the added camera", func() bool {
		c := d.capt.Load()
		if c == nil {
			return false
		}
		for _, s := range c.Stats() {
			if s.Topic == "/cam_b/compressed" && s.Messages > 0 {
				return true
			}
		}
		return false
	})
	if got := d.pipe.Status().View().Episode.ID; got != before || !d.pipe.Status().EpisodeOpen() {
		t.Fatalf("episode %s (open %v) after reload, want %s still open", got, d.pipe.Status().EpisodeOpen(), before)
	}
	if n := len(d.pipe.Topology().CameraTopics()); n != 2 {
		t.Fatalf("%d cameras after reload, want 2", n)
	}
	ms, err := episode.List(filepath.Join(dir, "data", "episodes"))
	if err != nil || len(ms) != 1 || ms[0].Closed {
		t.Fatalf("episodes after reload: %+v, %v; want the one open episode", ms, err)
	}

	// Stopping (SIGTERM in edged run) closes the open episode as
	// interrupted, with its open segment.
	run.stop(t)
	ep, err := episode.Load(filepath.Join(dir, "data", "episodes"), ms[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	last := ep.Segments[len(ep.Segments)-1]
	if !ep.Manifest.Closed || ep.Manifest.Outcome != episode.Interrupted || last.Outcome != episode.Interrupted {
		t.Fatalf("after stop: manifest %+v, last segment %+v; want both interrupted", ep.Manifest, last)
	}
}

// TestReloadChecks: SIGHUP's reload reads the trace checks again (the
// rules file too): episodes closing after it are judged by the new
// checks, and the status page lists their verdicts; a rules file that
// does not parse is refused with a log line naming the position, and
// the running checks stay.
func TestReloadChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster and rospy; skipped with -short")
	}
	m := rostest.StartMaster(t)
	// every message a new state; episode.max_duration closes an episode
	// every second
	m.Publish("--name", "fsm_pub", "--topic", "/task/state", "--kind", "string", "--rate", "10")
	dir := t.TempDir()
	rules := filepath.Join(dir, "rules.yaml")
	writeRules := func(s string) {
		t.Helper()
		if err := os.WriteFile(rules, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeRules("checks: [{name: greeted, formula: 'tr.Exists(hello.*)'}]\n")
	cfg := parseConfig(t, fmt.Sprintf("robot_id: r1\ndata_dir: %s\nros: {master_uri: %q, host: 127.0.0.1}\n"+
		"http: {listen: \"off\"}\njoints: [{topic: /joint_states}]\nfsm: [{topic: /task/state, idle_states: [IDLE]}]\n"+
		"episode: {max_duration: 1s}\nchecks: {file: %s}\n", filepath.Join(dir, "data"), m.URI, rules))
	logs := &lockedBuf{}
	reload := make(chan struct{})
	d, _ := runDaemon(t, cfg, Options{Logger: slog.New(slog.NewTextHandler(logs, nil)), Reload: reload,
		LoadConfig: func() (*config.Config, error) { c := *cfg; return &c, nil }})
	lastJudged := func() (string, string) {
		j := d.pipe.Status().View().Judged
		if len(j) == 0 || len(j[0].Verdicts) != 1 {
			return "", ""
		}
		return j[0].Episode, j[0].Verdicts[0].Check
	}
	judgedBy := func(check string) func() bool {
		return func() bool { _, c := lastJudged(); return c == check }
	}
	rostest.WaitFor(t, 60*time.Second, "an episode judged by the first checks", judgedBy("greeted"))

	writeRules("checks: [{name: never-bye, formula: 'not tr.Exists(bye)'}]\n")
	reload <- struct{}{}
	rostest.WaitFor(t, 60*time.Second, "an episode judged by the reloaded checks", judgedBy("never-bye"))

	writeRules("checks: [{name: broken, formula: 'tr.Exists(a'}]\n")
	reload <- struct{}{}
	rostest.WaitFor(t, 60*time.Second, "the bad rules file refused in the log", func() bool {
		return strings.Contains(logs.String(), "reload refused")
	})
	if s := logs.String(); !strings.Contains(s, "checks[0].formula: 1:12") {
		t.Fatalf("the refusal does not say where the formula is wrong:\n%s", s)
	}
	refused, _ := lastJudged()
	rostest.WaitFor(t, 60*time.Second, "an episode closed after the refused reload", func() bool {
		id, _ := lastJudged()
		return id != refused
	})
	if _, c := lastJudged(); c != "never-bye" {
		t.Fatalf("after a refused reload the episode was judged by %q, want the running never-bye", c)
	}

	// The status page lists verdicts and the counts per check.
	var page bytes.Buffer
	if err := statusPage.Execute(&page, d.pageData()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<table id="checks">`, "<td>greeted</td>", "<td>never-bye</td>", `<span class="ok">SAT</span>`,
		"master " + m.URI + ` <span class="ok">up</span>`} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("status page lacks %q", want)
		}
	}
	for _, c := range d.pageData().Checks {
		if c.Sat == 0 || c.Unsat != 0 || (c.Check != "greeted" && c.Check != "never-bye") {
			t.Errorf("counts %+v, want SAT only, of greeted and never-bye", c)
		}
	}
}
