package clip

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/cliptest"
	"github.com/edged-robotics/edged/internal/mcaptest"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/ros/msg"
)

// TestDefinitionsAreROSs: the schemas a clip writes are the ROS types'
// own definitions (ROS's md5sums).
func TestDefinitionsAreROSs(t *testing.T) {
	for _, tc := range []struct{ typ, def, md5 string }{
		{ros1.imageType, ros1.imageSchema, msg.MD5CompressedImage},
		{ros1.jointType, ros1.jointSchema, msg.MD5JointState},
	} {
		d, err := msg.Parse(tc.typ, tc.def)
		if err != nil {
			t.Fatal(err)
		}
		if d.MD5() != tc.md5 {
			t.Errorf("%s: md5 %s, ROS's %s", tc.typ, d.MD5(), tc.md5)
		}
	}
}

// racingRing is capture racing a clip: before each of the first copies
// of the clip, it puts more frames into the ring, overwriting the
// oldest ones the clip listed but did not copy yet.
type racingRing struct {
	*ringbuf.Ring
	t          *testing.T
	putsBefore []int // frames put before the i-th copy
	copies     int
	next       time.Time
}

func (r *racingRing) Copy(seq uint64, dst []byte) ([]byte, bool) {
	if r.copies < len(r.putsBefore) {
		for range r.putsBefore[r.copies] {
			putJPEG(r.t, r.Ring, r.next, 1000)
			r.next = r.next.Add(100 * time.Millisecond)
		}
	}
	r.copies++
	return r.Ring.Copy(seq, dst)
}

// TestWindowLostToOverwrites: a ring of 10 frames all in the window,
// overwritten while the clip copies them: each frame listed but
// overwritten before its copy is lost, counted in the result, the log's
// metadata record, and the stats; the others are in the file.
func TestWindowLostToOverwrites(t *testing.T) {
	for _, tc := range []struct {
		name       string
		putsBefore []int
		lost       int
	}{
		{"no race", nil, 0},
		// before the 1st copy 3 frames evict seq 1..3: copies 1..3 lost
		{"three before the first", []int{3}, 3},
		// seq 1 copied; then 4 more evict seq 1..4: 2..4 lost
		{"four after the first", []int{0, 4}, 3},
		// the whole window overwritten before any copy
		{"all", []int{10}, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ring := newRing(t, 10)
			for i := range 10 {
				putJPEG(t, ring, t0.Add(time.Duration(i)*100*time.Millisecond), 1000)
			}
			rr := &racingRing{Ring: ring, t: t, putsBefore: tc.putsBefore, next: t0.Add(time.Second)}
			cfg := policy.Default()
			cfg.Pre, cfg.Post = time.Second, 0
			s := stageFor(t, cfg, dir, Camera{Name: "cam", Topic: "/cam", Ring: rr})
			p, err := s.Trigger(Trigger{Kind: KindRequest, Time: t0.Add(900 * time.Millisecond)})
			if err != nil {
				t.Fatal(err)
			}
			s.Advance(t0.Add(900*time.Millisecond + settle))
			res := p.Result()
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			if res.Lost != tc.lost || res.Frames != 10-tc.lost {
				t.Errorf("lost %d, written %d; want %d lost of 10", res.Lost, res.Frames, tc.lost)
			}
			perTopic, _, meta := readClip(t, res.Path, "/cam")
			if perTopic["/cam"] != 10-tc.lost || meta["lost_frames"] != strconv.Itoa(tc.lost) {
				t.Errorf("file: %d frames, metadata %v", perTopic["/cam"], meta)
			}
			if st := s.Stats(); st.LostFrames != uint64(tc.lost) || st.Written != 1 {
				t.Errorf("stats %+v", st)
			}
		})
	}
}

// TestClipHoldsTheWindow: frames stamped in [trigger-pre, trigger+post]
// and no others, raw ones as JPEG; joints and transitions of the window;
// the segments so far; channel metadata naming episode and trigger; as
// ROS1 or ROS 2 messages (ros1msg or ros2msg schemas, each decoding).
func TestClipHoldsTheWindow(t *testing.T) {
	for _, tc := range []struct {
		name              string
		ros2              bool
		schemaEnc, msgEnc string
	}{
		{"ros1", false, "ros1msg", "ros1"},
		{"ros2", true, "ros2msg", "cdr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := testClipHoldsTheWindow(t, tc.ros2)
			encodings := clipEncodings(t, path)
			if encodings["/cam"] != tc.schemaEnc+" "+tc.msgEnc || encodings["/joint_states"] != tc.schemaEnc+" "+tc.msgEnc {
				t.Errorf("encodings %v", encodings)
			}
			checkWithMcapCore(t, path, encodings)
		})
	}
}

// testClipHoldsTheWindow writes the clip and checks what it holds; it
// returns its path.
func testClipHoldsTheWindow(t *testing.T, ros2 bool) string {
	dir := t.TempDir()
	ring := newRing(t, 100)
	raw := newRing(t, 100)
	cfg := policy.Default()
	cfg.Pre, cfg.Post = 2*time.Second, time.Second
	s := stageOf(t, cfg, dir, ros2, Camera{Name: "front", Topic: "/cam", Ring: ring}, Camera{Name: "raw", Topic: "/raw", Ring: raw})
	trig := t0.Add(5 * time.Second)
	p, err := s.Trigger(Trigger{Kind: KindState, Time: trig, Reason: "entered FAILED"})
	if err != nil {
		t.Fatal(err)
	}
	s.History().Transition(episode.Transition{Stamp: trig, Kind: episode.TransitionState, From: "GRASP", To: "FAILED"})
	s.History().Transition(episode.Transition{Stamp: t0, Kind: episode.TransitionState, To: "GRASP"}) // before the window
	s.History().SegmentClosed(episode.Segment{Index: 0, Start: t0, End: trig, Label: "GRASP"})
	var want []time.Time
	for i := range 80 { // 8 s at 10 Hz
		at := t0.Add(time.Duration(i) * 100 * time.Millisecond)
		putJPEG(t, ring, at, 500)
		f := capture.Frame{Topic: "/raw", Stamp: at, Format: capture.FormatRaw, Encoding: "rgb8", FrameID: "raw_optical_frame",
			Width: 4, Height: 2, Step: 12, Data: make([]byte, 24)}
		if err := raw.Put(&f); err != nil {
			t.Fatal(err)
		}
		s.History().PutJoints(capture.JointSample{Topic: "/joint_states", Stamp: at, Names: []string{"a"}, Position: []float64{float64(i)}})
		if !at.Before(trig.Add(-cfg.Pre)) && !at.After(trig.Add(cfg.Post)) {
			want = append(want, at)
		}
		s.Advance(at)
	}
	<-p.Done()
	res := p.Result()
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if b, err := os.ReadFile(res.Path); err != nil || fmt.Sprintf("%x", sha256.Sum256(b)) != res.SHA256 || int64(len(b)) != res.Bytes {
		t.Errorf("result says %d bytes, sha256 %s; the file %d bytes (%v)", res.Bytes, res.SHA256, len(b), err)
	}
	perTopic, stamps, meta := readClip(t, res.Path, "/cam")
	checkFrameIDs(t, res.Path)
	if len(stamps) != len(want) || !stamps[0].Equal(want[0]) || !stamps[len(stamps)-1].Equal(want[len(want)-1]) {
		t.Errorf("frames %d from %v to %v, want %d from %v to %v", len(stamps), stamps[0], stamps[len(stamps)-1], len(want), want[0], want[len(want)-1])
	}
	if perTopic["/raw"] != len(want) || perTopic["/joint_states"] != len(want) {
		t.Errorf("messages per topic %v, want %d raw frames and joint samples", perTopic, len(want))
	}
	if meta["episode"] != "arm-01-ep" || meta["trigger"] != "state" || meta["reason"] != "entered FAILED" {
		t.Errorf("metadata %v", meta)
	}
	if filepath.Dir(res.Path) != episode.ClipDir(filepath.Join(dir, "arm-01-ep")) || res.Name != episode.ClipName(trig, "state") {
		t.Errorf("written to %s", res.Path)
	}
	if perTopic[TopicTransitions] != 1 || perTopic[TopicSegments] != 1 {
		t.Errorf("transitions %d (want the window's 1), segments %d (want 1)", perTopic[TopicTransitions], perTopic[TopicSegments])
	}
	return res.Path
}

// checkFrameIDs: every frame of the clip at path is in the frame_id its
// camera's frames were put in (testClipHoldsTheWindow's), as received.
func checkFrameIDs(t *testing.T, path string) {
	t.Helper()
	c := cliptest.Read(t, path, "/cam")
	if len(c.FrameIDs) == 0 {
		t.Fatal("no /cam frames")
	}
	for i, id := range c.FrameIDs {
		if id != camFrameID {
			t.Fatalf("/cam frame %d in frame_id %q, want %q", i, id, camFrameID)
		}
	}
	raw, _ := c.First["/raw"].(map[string]any)
	if h, _ := raw["header"].(map[string]any); h["frame_id"] != "raw_optical_frame" {
		t.Errorf("/raw's first frame: header %v, want frame_id raw_optical_frame", raw["header"])
	}
}

// clipEncodings are the schema and message encodings of each topic of
// the clip at path ("ros2msg cdr").
func clipEncodings(t *testing.T, path string) map[string]string {
	t.Helper()
	r, err := mcap.Open(path, mcap.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	out := map[string]string{}
	for _, c := range r.Channels() {
		if c.Schema != nil {
			out[c.Topic] = c.Schema.Encoding + " " + c.MessageEncoding
		}
	}
	return out
}

// checkWithMcapCore: Foxglove's @mcap/core reads the clip with the
// channels, encodings and messages per topic edged's reader found, and
// Foxglove's deserializers decode every message as edged's reader does
// (cliptest.CheckFoxgloveDecodes).
func checkWithMcapCore(t *testing.T, path string, encodings map[string]string) {
	c := cliptest.Read(t, path, "")
	perTopic := c.PerTopic
	v := mcaptest.ReadFile(t, path)
	cliptest.CheckFoxgloveDecodes(t, c, v)
	ix := v.Indexed
	if !maps.Equal(ix.ByTopic, perTopic) || !ix.DataCrcMatches {
		t.Errorf("@mcap/core: messages per topic %v (data CRC matches: %v), edged's reader %v", ix.ByTopic, ix.DataCrcMatches, perTopic)
	}
	got := map[string]string{}
	for _, c := range ix.Channels {
		for _, s := range ix.Schemas {
			if s.ID == c.SchemaID {
				got[c.Topic] = s.Encoding + " " + c.MessageEncoding
			}
		}
	}
	if !maps.Equal(got, encodings) {
		t.Errorf("@mcap/core: encodings %v, edged's reader %v", got, encodings)
	}
}

// TestRefusals: a second clip of a kind within min_interval and a clip
// without an episode are refused, said (ErrSkipped with the reason) and
// counted; older clips make room for a newer one within the budget.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	ring := newRing(t, 1000)
	for i := range 40 { // 4 s, 400 KB
		putJPEG(t, ring, t0.Add(time.Duration(i)*100*time.Millisecond), 10_000)
	}
	cfg := policy.Default()
	cfg.Pre, cfg.Post, cfg.MinInterval, cfg.MaxBytes = time.Second, 0, time.Minute, policy.MinMaxBytes
	s := stageFor(t, cfg, dir, Camera{Name: "cam", Topic: "/cam", Ring: ring})
	clip := func(kind Kind, at time.Time) Result {
		p, _ := s.Trigger(Trigger{Kind: kind, Time: at})
		s.Advance(at.Add(settle))
		return p.Result()
	}
	first := clip(KindRequest, t0.Add(time.Second))
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	if r := clip(KindRequest, t0.Add(2*time.Second)); !errors.Is(r.Err, ErrSkipped) || r.Skipped != SkipRateLimit {
		t.Errorf("a second request 1s later: %v", r.Err)
	}
	if r := clip(KindRequest, t0.Add(62*time.Second)); r.Err != nil {
		t.Errorf("a request min_interval later: %v", r.Err)
	}
	// another kind is not limited by the first; ~110 KB each, so the
	// budget of 1 MiB holds about nine: the oldest go first
	for i := range 12 {
		if r := clip(Kind("k"+strconv.Itoa(i)), t0.Add(3*time.Second)); r.Err != nil {
			t.Fatal(r.Err)
		}
	}
	if _, err := os.Stat(first.Path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the oldest clip was not deleted for the budget: %v", err)
	}
	if clips, total := s.storedClips(); total > cfg.MaxBytes || len(clips) < 8 {
		t.Errorf("%d clips, %d bytes, budget %d", len(clips), total, cfg.MaxBytes)
	}
	stale := filepath.Join(episode.ClipDir(filepath.Join(dir, "arm-01-ep")), "."+episode.ClipName(t0, "state")+".tmp123")
	if err := os.WriteFile(stale, []byte("half"), 0o644); err != nil {
		t.Fatal(err)
	}
	restarted := stageFor(t, cfg, dir)
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) || restarted.Stats().Written != 0 {
		t.Errorf("a half-written clip left by a crash is still there: %v", err)
	}
	if r := clip(KindRequest, t0.Add(62*time.Second)); r.Skipped != SkipRateLimit {
		t.Errorf("a request of the same time as the last (min_interval aside): %+v", r)
	}
	noEpisode, err := New(cfg, Options{Sync: true, Logger: s.log})
	if err != nil {
		t.Fatal(err)
	}
	defer noEpisode.Close()
	if _, err := noEpisode.Trigger(Trigger{Kind: KindRequest, Time: t0}); !errors.Is(err, ErrSkipped) {
		t.Errorf("a clip without an episode: %v", err)
	}
	st := s.Stats()
	if st.Skipped[SkipRateLimit] != 2 || st.Deleted < 4 || st.Written != 14 {
		t.Errorf("stats %+v", st)
	}
}

// TestOverBudgetAlone: a clip larger than clips.max_bytes alone is
// refused and deleted, and no older clip is deleted for it.
func TestOverBudgetAlone(t *testing.T) {
	dir := t.TempDir()
	a, b := newRing(t, 1000), newRing(t, 1000)
	for i := range 9 { // 2 x 9 x 100 KB > 1 MiB
		putJPEG(t, a, t0.Add(time.Duration(i)*100*time.Millisecond), 100_000)
		putJPEG(t, b, t0.Add(time.Duration(i)*100*time.Millisecond), 100_000)
	}
	cfg := policy.Default()
	cfg.Pre, cfg.Post, cfg.MaxBytes = time.Second, 0, policy.MinMaxBytes
	s := stageFor(t, cfg, dir, Camera{Name: "a", Topic: "/a", Ring: a}, Camera{Name: "b", Topic: "/b", Ring: b})
	p, err := s.Trigger(Trigger{Kind: KindRequest, Time: t0.Add(time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	s.Advance(t0.Add(time.Second + settle))
	if r := p.Result(); r.Skipped != SkipBudget || !errors.Is(r.Err, ErrSkipped) {
		t.Fatalf("a clip over the budget alone: %+v", r)
	}
	left, _ := filepath.Glob(filepath.Join(episode.ClipDir(filepath.Join(dir, "arm-01-ep")), "*"))
	if len(left) != 0 {
		t.Errorf("left behind: %v", left)
	}
	if st := s.Stats(); st.Skipped[SkipBudget] != 1 || st.Written != 0 {
		t.Errorf("stats %+v", st)
	}
}
