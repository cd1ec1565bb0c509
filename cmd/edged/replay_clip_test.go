package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/pipelinetest"
)

// TestReplayClip: `edged replay clip.mcap` reads an incident clip, as
// the clip stage wrote it, back through the pipeline: every frame and
// joint state of the clip is replayed and used, its transitions and
// segments are not mistaken for a camera or joints, and the FSM its
// transitions record (the string source /task/state, from the state it
// was in at the window's start) gives one episode whose segments are
// the clip's within the window.
func TestReplayClip(t *testing.T) {
	tmp := t.TempDir()
	_, path := pipelinetest.SimClip(t, tmp)
	stamps, perTopic, _ := pipelinetest.ReadClip(t, path, pipelinetest.SimCamera)
	trans, segs := pipelinetest.ClipFSM(t, path)
	if len(stamps) < 100 || len(trans) < 2 || len(segs) < 2 {
		t.Fatalf("clip: %d frames, %d transitions, %d segments", len(stamps), len(trans), len(segs))
	}
	outDir := filepath.Join(tmp, "replayed")
	out := edged(t, true, "replay", "-q", "--out", outDir, "--fsm", "/task/state", "--idle", "IDLE", path)
	m := regexp.MustCompile(`replayed (\d+) messages .*: (\d+) episodes, (\d+) segments`).FindStringSubmatch(out)
	if m == nil || strings.Contains(out, "could not be used") {
		t.Fatalf("want a summary and every message used:\n%s", out)
	}
	// every frame and joint state, the state at the window's start and
	// each transition: nothing of the JSON channels
	want := len(stamps) + perTopic["/joint_states"] + 1 + len(trans)
	if n, _ := strconv.Atoi(m[1]); n != want || m[2] != "1" {
		t.Fatalf("replayed %s messages and %s episodes, want %d and 1:\n%s", m[1], m[2], want, out)
	}
	store := filepath.Join(outDir, episode.EpisodesDir)
	eps, err := episode.List(store)
	if err != nil || len(eps) != 1 {
		t.Fatalf("episodes %+v, %v", eps, err)
	}
	ep, err := episode.Load(store, eps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	checkReplayedSegments(t, ep.Segments, segs, trans[len(trans)-1], stamps[0])
}

// checkReplayedSegments: the replayed episode has the clip's segments
// (the first one cut at the window's start), then the one the last
// transition opened.
func checkReplayedSegments(t *testing.T, got, clipSegs []episode.Segment, last episode.Transition, windowStart time.Time) {
	t.Helper()
	if len(got) != len(clipSegs)+1 {
		t.Fatalf("%d segments replayed, the clip has %d and one open: %+v", len(got), len(clipSegs), got)
	}
	for i, s := range clipSegs {
		start := s.Start
		if start.Before(windowStart) {
			start = windowStart
		}
		if g := got[i]; g.Label != s.Label || !g.Start.Equal(start) || !g.End.Equal(s.End) {
			t.Errorf("segment %d: %s [%v, %v], the clip's %s [%v, %v]", i, g.Label, g.Start, g.End, s.Label, start, s.End)
		}
	}
	if g := got[len(clipSegs)]; g.Label != last.To || !g.Start.Equal(last.Stamp) {
		t.Errorf("last segment %s at %v, the clip's last transition to %s at %v", g.Label, g.Start, last.To, last.Stamp)
	}
}
