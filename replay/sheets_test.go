package replay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/replay"
	"github.com/edged-robotics/edged/ros/rostest"
	"github.com/edged-robotics/edged/sheet"
	"github.com/klauspost/compress/zstd"
)

// TestReplayShipsObservationsApartFromTruth replays the generated demo
// episode and the real G1 episode to a real broker and sink, and checks
// what the daemon built: no labeling sheet by default (the cloud
// composes them from the contact sheets), and with
// sheet.ship_label_sheets one per closed segment, named and described by
// its index, each one VLM tile, shipped; no FSM label in any snippet
// (snippets are shown to the VLM, the labels are what its answer is
// scored against); and the sink's copy,
// read by the commands' own readers, agrees with the robot's store, the
// trace checks' verdicts included.
func TestReplayShipsObservationsApartFromTruth(t *testing.T) {
	for _, tc := range []struct {
		name                      string
		bag                       func(t *testing.T, dir string) string
		camera, joints, fsm, idle string
		shipLabels                bool
	}{
		{"generated", func(t *testing.T, dir string) string { b, _ := pipelinetest.SimBag(t, dir); return b },
			"/camera/color/image_raw/compressed", "/joint_states", "/task/state", "IDLE", false},
		{"generated, labeling sheets shipped", func(t *testing.T, dir string) string { b, _ := pipelinetest.SimBag(t, dir); return b },
			"/camera/color/image_raw/compressed", "/joint_states", "/task/state", "IDLE", true},
		{"g1", func(t *testing.T, _ string) string { return sampledata.Path(t, "g1_ep29.bag") },
			"/cam_high/image_raw/compressed", "/joint_states", "/task_state", "idle", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			replayToSink(t, tmp, tc.bag(t, tmp), fmt.Sprintf(`
cameras: [{topic: %s, name: top}]
joints: [{topic: %s}]
fsm: [{topic: %s, type: string, idle_states: [%s]}]
sheet: {ship_label_sheets: %v}
checks: {rules: {checks: [{name: grasp-after-reach, formula: 'tr.AfterFirst(reach).Exists(grasp)'},
  {name: place-after-grasp, formula: 'tr.AfterFirst(grasp).Exists(place)'}]}}
`, tc.camera, tc.joints, tc.fsm, tc.idle, tc.shipLabels), tc.shipLabels)
		})
	}
}

// replayToSink replays bag with the topics of topicsYAML through a real
// broker into a sink and checks both stores (see the test above).
func replayToSink(t *testing.T, tmp, bag, topicsYAML string, shipLabels bool) {
	broker := brokertest.Start(t, brokertest.Options{})
	sinkOut := filepath.Join(tmp, "sink")
	pipelinetest.StartSink(t, broker.URL, sinkOut)
	cfg, err := config.Parse([]byte(fmt.Sprintf(`
robot_id: sim-01
data_dir: %s
http: {listen: "off"}
uplink: {broker: %q, max_payload: 32KiB}
%s`, filepath.Join(tmp, "data"), broker.URL, topicsYAML)))
	if err != nil {
		t.Fatal(err)
	}
	d, err := replay.New(cfg, replay.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := d.Run(context.Background(), []string{bag}, nil)
	if err != nil || sum.Episodes != 1 {
		t.Fatalf("replay: %+v, %v", sum, err)
	}
	store := filepath.Join(tmp, "data", "episodes")
	ms, err := episode.List(store)
	if err != nil || len(ms) != 1 {
		t.Fatalf("episodes: %v, %v", ms, err)
	}
	ep, err := episode.Load(store, ms[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	labelDir := episode.LabelDir(filepath.Join(store, ep.Manifest.ID), "top")
	wantLabels := 0
	if shipLabels {
		checkLabelSheets(t, labelDir, ep)
		wantLabels = len(ep.Segments)
	} else if kept, _ := filepath.Glob(filepath.Join(labelDir, "*.jpg")); len(kept) != 0 {
		t.Errorf("%d labeling sheets on the robot, want none: sheet.ship_label_sheets is off", len(kept))
	}

	// At the sink: every snippet (one per contact sheet), wherever the
	// sink lays them out, and the labeling sheets shipped (none unless
	// sheet.ship_label_sheets: the cloud composes them from the contact
	// sheets).
	var snippets, labels []string
	rostest.WaitFor(t, 20*time.Second, "the snippets at the sink", func() bool {
		snippets, labels = sinkFiles(t, sinkOut)
		return len(snippets) == int(sum.Sheets)
	})
	if len(labels) != wantLabels {
		t.Errorf("%d labeling sheets shipped, want %d", len(labels), wantLabels)
	}
	var truth [][]byte
	for _, s := range ep.Segments {
		truth = append(truth, []byte(s.Label))
	}
	for _, tr := range ep.Transitions {
		truth = append(truth, []byte(tr.To))
	}
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, p := range snippets {
		body, _ := os.ReadFile(p)
		raw, err := dec.DecodeAll(body, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, label := range truth {
			if len(label) > 0 && bytes.Contains(raw, label) {
				t.Errorf("%s carries the FSM label %q", filepath.Base(p), label)
			}
		}
		for _, key := range []string{"states", "transitions"} {
			if bytes.Contains(raw, []byte(key)) {
				t.Errorf("%s has a %q key", filepath.Base(p), key)
			}
		}
	}
	rostest.WaitFor(t, 20*time.Second, "the sink's copy complete", func() bool {
		got, err := episode.Load(episode.StoreDir(sinkOut), ep.Manifest.ID)
		return err == nil && got.Manifest.Complete
	})
	pipelinetest.CheckUploaded(t, sinkOut, filepath.Join(store, ep.Manifest.ID), ep, "top", int(sum.Sheets))
	checkVerdictsUploaded(t, sinkOut, ep)
}

// checkVerdictsUploaded: the robot judged the episode by the configured
// checks, and the sink's manifest holds the same verdicts.
func checkVerdictsUploaded(t *testing.T, sinkOut string, ep *episode.Episode) {
	t.Helper()
	v := ep.Manifest.Verdicts
	if len(v) != 2 || v[0].Check != "grasp-after-reach" || !v[0].Sat || v[1].Check != "place-after-grasp" {
		t.Fatalf("robot's verdicts %+v, want grasp-after-reach SAT and place-after-grasp", v)
	}
	got, err := episode.Load(episode.StoreDir(sinkOut), ep.Manifest.ID)
	if err != nil || !reflect.DeepEqual(got.Manifest.Verdicts, v) {
		t.Fatalf("sink's verdicts %+v (%v), want the robot's %+v", got.Manifest.Verdicts, err, v)
	}
}

var labelFile = regexp.MustCompile(`^label-([0-9]{4,})\.jpg$`)

// checkLabelSheets: one labeling sheet per closed segment, label-SSSS by
// its index, its metadata naming the segment, tiles inside it, 258
// tokens.
func checkLabelSheets(t *testing.T, dir string, ep *episode.Episode) {
	t.Helper()
	if len(ep.Segments) == 0 {
		t.Fatal("the episode has no segments")
	}
	for _, s := range ep.Segments {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("label-%04d.json", s.Index)))
		if err != nil {
			t.Errorf("segment %d: %v", s.Index, err)
			continue
		}
		var m sheet.Meta
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		if m.Kind != "label" || m.Index != s.Index || m.Segment == nil || m.Segment.Index != s.Index ||
			!m.Segment.Start.Time().Equal(s.Start) || !m.Segment.End.Time().Equal(s.End) || m.Tokens != 258 || len(m.Tiles) == 0 {
			t.Errorf("segment %d [%.2f, %.2f): meta %+v", s.Index, s.StartSec, s.EndSec, m)
			continue
		}
		if s.End.Equal(s.Start) { // nothing lies inside [start, start): a placeholder, and why
			if len(m.Tiles) != 1 || !m.Tiles[0].Placeholder || m.Note == "" {
				t.Errorf("empty segment %d at %.2f: tiles %+v, note %q; want one placeholder and a note", s.Index, s.StartSec, m.Tiles, m.Note)
			}
			continue
		}
		for _, tm := range m.Tiles {
			if tm.Placeholder || tm.Seconds < m.Segment.StartSeconds || tm.Seconds >= m.Segment.EndSeconds {
				t.Errorf("segment %d [%.2f, %.2f): tile %+v", s.Index, s.StartSec, s.EndSec, tm)
			}
		}
		if strings.Contains(string(b), s.Label) {
			t.Errorf("label-%04d.json names the FSM label %q", s.Index, s.Label)
		}
	}
	all, _ := filepath.Glob(filepath.Join(dir, "label-*.jpg"))
	if len(all) != len(ep.Segments) {
		t.Errorf("%d labeling sheets for %d segments", len(all), len(ep.Segments))
	}
}

// sinkFiles lists the snippets and labeling sheets under the sink's
// output.
func sinkFiles(t *testing.T, root string) (snippets, labels []string) {
	t.Helper()
	_ = filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".msgpack.zst"):
			snippets = append(snippets, p)
		case labelFile.MatchString(e.Name()):
			labels = append(labels, p)
		}
		return nil
	})
	return snippets, labels
}
