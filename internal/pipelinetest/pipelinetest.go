// Package pipelinetest holds the test helpers the tests of daemon (edged
// run) and replay (edged replay) share: the generated pick-and-place
// bag, a replay of a bag, the reference receiver on a broker, and the
// checks of what the stages recorded and uploaded. Tests only.
package pipelinetest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/replay"
	"github.com/edged-robotics/edged/ros/rostest"
	"github.com/edged-robotics/edged/score"
	"github.com/edged-robotics/edged/sink"
)

// moduleRoot is the repository's root: the nearest directory above the
// test's working directory (its package's) holding go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		} else if !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// SimBag writes the project's generated pick-and-place episode and its
// ground truth into dir.
func SimBag(t *testing.T, dir string) (bag, truth string) {
	t.Helper()
	rostest.RequireRospy(t)
	script := filepath.Join(moduleRoot(t), "scripts", "sim", "sim_robot.py")
	bag, truth = filepath.Join(dir, "sim.bag"), filepath.Join(dir, "truth.json")
	if out, err := exec.Command("/usr/bin/python3", script, "--bag", bag).CombinedOutput(); err != nil {
		t.Fatalf("generate the sample bag: %v\n%s", err, out)
	}
	out, err := exec.Command("/usr/bin/python3", script, "--segments").Output()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(truth, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return bag, truth
}

// ReplayBag runs edged replay of bag with cfg's topics into out.
func ReplayBag(t *testing.T, cfg *config.Config, out, bag string) replay.Summary {
	t.Helper()
	sum, err := ReplayBagErr(t, cfg, out, bag)
	if err != nil {
		t.Fatalf("replay: %v", err)
	}
	return sum
}

// ReplayBagErr is ReplayBag that returns the replay's error.
func ReplayBagErr(t *testing.T, cfg *config.Config, out, bag string) (replay.Summary, error) {
	t.Helper()
	c := *cfg
	c.DataDir, c.HTTP.Listen, c.Uplink.Broker = out, "off", ""
	r, err := replay.New(&c, replay.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return r.Run(context.Background(), []string{bag}, nil)
}

// StartSink runs the reference receiver on broker, writing under out.
func StartSink(t *testing.T, broker, out string) {
	t.Helper()
	s, err := sink.New(sink.Config{Broker: broker, Out: out, ClientID: "test-sink"}, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = s.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; s.Close() })
	rostest.WaitFor(t, 10*time.Second, "sink connected", func() bool { return s.Stats().Connects > 0 })
}

// CheckUploaded: the sink's output is a data_dir holding the episode in
// the robot's own format: the commands' readers (inspect's List and Load,
// export, score) find it and agree with the robot's store; it is
// complete; every sheet and snippet arrived byte for byte, and the
// labeling sheets the robot made (none unless it ships them)
// (chunked, since max_payload is smaller than a sheet).
func CheckUploaded(t *testing.T, sinkOut, epDir string, ep *episode.Episode, camera string, sheets int) {
	t.Helper()
	store := episode.StoreDir(sinkOut)
	ms, err := episode.List(store)
	if err != nil || len(ms) != 1 || ms[0].ID != ep.Manifest.ID {
		t.Fatalf("edged inspect %s lists %+v, %v; want the robot's episode %s", sinkOut, ms, err, ep.Manifest.ID)
	}
	got, err := episode.Load(store, ep.Manifest.ID)
	if err != nil {
		t.Fatal(err)
	}
	m := got.Manifest
	if !m.Complete || !m.Closed || m.Segments != ep.Manifest.Segments || m.Outcome != ep.Manifest.Outcome ||
		!m.Start.Equal(ep.Manifest.Start) || !m.End.Equal(ep.Manifest.End) || len(got.Problems) != 0 {
		t.Errorf("sink manifest %+v (held %+v, problems %v), robot's %+v", m, m.Held, got.Problems, ep.Manifest)
	}
	if !reflect.DeepEqual(view.Segmentation(got), view.Segmentation(ep)) {
		t.Errorf("score's segments differ:\nsink  %+v\nrobot %+v", view.Segmentation(got), view.Segmentation(ep))
	}
	r, err := score.Score(view.Segmentation(ep), view.Segmentation(got), score.Options{Judge: score.LexicalJudge{MinOverlap: 0.5}})
	if err != nil {
		t.Fatal(err)
	}
	var a, b strings.Builder
	if err := view.Export(&a, ep, view.FormatWGO, 10); err != nil {
		t.Fatal(err)
	}
	if err := view.Export(&b, got, view.FormatWGO, 10); err != nil || a.String() != b.String() {
		t.Errorf("export differs (%v):\nsink  %s\nrobot %s", err, b.String(), a.String())
	}
	// Labeling sheets exist only where shipped (sheet.ship_label_sheets;
	// else the readers compose them from the contact sheets): the sink
	// holds as many as the robot.
	kept, _ := filepath.Glob(filepath.Join(epDir, episode.LabelsDir, "*", "*.jpg"))
	shipped, _ := filepath.Glob(filepath.Join(got.Dir, episode.LabelsDir, "*", "*.jpg"))
	if len(kept) != len(shipped) {
		t.Errorf("%d labeling sheets at the robot, %d at the sink; want as many", len(kept), len(shipped))
	}
	for _, sub := range []string{episode.SheetsDir, episode.LabelsDir} {
		local, _ := filepath.Glob(filepath.Join(epDir, sub, "*", "*.jpg"))
		if len(local) == 0 && sub == episode.SheetsDir {
			t.Errorf("no %s at the robot", sub)
		}
		// The same path in the episode directory, camera directory
		// included (the camera's configured name): one format.
		for _, p := range local {
			rel, _ := filepath.Rel(epDir, p)
			want, _ := os.ReadFile(p)
			b, err := os.ReadFile(filepath.Join(got.Dir, rel))
			if err != nil {
				t.Errorf("sink lacks %s: %v", rel, err)
				continue
			}
			if string(b) != string(want) {
				t.Errorf("%s differs at the sink", rel)
			}
		}
	}
	snips, _ := filepath.Glob(filepath.Join(got.Dir, episode.SnippetsDir, camera, "*"+episode.SnippetExt))
	if len(snips) != sheets {
		t.Errorf("sink has %d snippets, want one per sheet (%d)", len(snips), sheets)
	}
	t.Logf("sink manifest: complete %v, held %+v, produced %+v; score F1 %v", m.Complete, m.Held, m.Produced, r)
}

// CheckRecorded loads the one episode of store and checks its segments
// against the generator's truth and its sheets.
func CheckRecorded(t *testing.T, store, truthPath string) *episode.Episode {
	t.Helper()
	ms, err := episode.List(store)
	if err != nil || len(ms) != 1 {
		t.Fatalf("episodes in %s: %d, %v; want 1", store, len(ms), err)
	}
	ep, err := episode.Load(store, ms[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	truth, err := view.ReadSegmentation(truthPath)
	if err != nil {
		t.Fatal(err)
	}
	checkSegments(t, ep, truth)
	checkSheets(t, filepath.Join(store, ms[0].ID), ep)
	return ep
}

func checkSegments(t *testing.T, ep *episode.Episode, truth score.Segmentation) {
	t.Helper()
	if len(ep.Segments) != len(truth.Segments) {
		t.Fatalf("%d segments recorded, the generator made %d", len(ep.Segments), len(truth.Segments))
	}
	for i, s := range ep.Segments {
		want := truth.Segments[i]
		// The FSM topic is published at 10 Hz, so a transition is seen
		// within 0.1 s of bag time; std_msgs/String has no header, so
		// its stamp is the sim time of its arrival.
		if s.Label != want.Label || abs(s.StartSec-want.Start) > 0.15 || abs(s.EndSec-want.End) > 0.15 {
			t.Errorf("segment %d: %s [%.3f, %.3f], want %s [%.3f, %.3f]", i, s.Label, s.StartSec, s.EndSec, want.Label, want.Start, want.End)
		}
	}
}

func checkSheets(t *testing.T, dir string, ep *episode.Episode) {
	t.Helper()
	// 14.5 s of episode at 0.5 s per tile, 20 tiles per sheet: 2 sheets;
	// no labeling sheet (not shipped: sheet.ship_label_sheets is off).
	labels, _ := filepath.Glob(filepath.Join(episode.LabelDir(dir, "top"), "label-*.jpg"))
	dir = episode.SheetDir(dir, "top")
	sheets, _ := filepath.Glob(filepath.Join(dir, "sheet-*.jpg"))
	if len(sheets) != 2 || len(labels) != 0 {
		t.Fatalf("%d sheets and %d labeling sheets in %s, want 2 and none", len(sheets), len(labels), dir)
	}
	var meta struct {
		Tiles []struct {
			Seconds     float64 `json:"seconds"`
			Placeholder bool    `json:"placeholder"`
		} `json:"tiles"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "sheet-0001.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		t.Fatal(err)
	}
	if len(meta.Tiles) != 20 {
		t.Fatalf("first sheet has %d tiles, want 20", len(meta.Tiles))
	}
	for k, tile := range meta.Tiles {
		if tile.Seconds != float64(k)*0.5 || tile.Placeholder {
			t.Errorf("tile %d: %+v, want %.1f s with a frame (the camera runs at 16 fps)", k, tile, float64(k)*0.5)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
