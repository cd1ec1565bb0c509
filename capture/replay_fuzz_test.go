package capture

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag"
	"github.com/edged-robotics/edged/ros/msg"
)

// fuzzBagOptions keep allocations small on hostile input.
var fuzzBagOptions = bag.Options{MaxHeaderBytes: 4 << 10, MaxConnectionBytes: 64 << 10, MaxChunkBytes: 256 << 10, MaxCacheBytes: 1 << 20}

// replayBagBytes is edged replay's input path on one bag held in b: the
// bag's topics assigned to roles as the daemon does (capture.Discover
// for cameras and joints, every other topic an FSM source), then every
// message through Replay.Handle. It returns the messages handled and
// the damage reported (the reader's problems, the iterator's error).
func replayBagBytes(t *testing.T, b []byte) (handled int, damage []string) {
	r, err := bag.NewReader(bytes.NewReader(b), int64(len(b)), "fuzz.bag", fuzzBagOptions)
	if err != nil {
		return 0, []string{err.Error()}
	}
	cfg := bagConfig(r.Connections())
	rec := &recorder{}
	rp, err := NewReplay(cfg, Sinks{Frames: rec, Joints: rec, States: rec}, Options{Now: func() time.Time { return wallNow }})
	if err != nil {
		return 0, []string{err.Error()} // a recorded topic name capture refuses: reported, as edged replay does
	}
	it := r.Messages(rp.Topics()...)
	defer it.Close()
	for it.Next() {
		m := it.Message()
		if err := rp.Handle(m.Conn.Topic, m.Conn.Publisher, m.Data, m.Time); err != nil && !m.Time.IsZero() {
			t.Fatalf("Handle of a captured topic's message: %v", err)
		}
		handled++
	}
	if err := it.Err(); err != nil {
		damage = append(damage, err.Error())
	}
	var n uint64
	for _, s := range rp.Stats() {
		n += s.Messages + s.OversizeDrops
	}
	if n > uint64(handled) {
		t.Fatalf("stats count %d messages, %d handled", n, handled)
	}
	return handled, append(damage, r.Info().Problems...)
}

// bagConfig assigns the bag's topics to roles: cameras and joints as
// Discover picks them, every other distinct topic an FSM source.
func bagConfig(conns []*bag.Connection) Config {
	var tt []TopicType
	for _, c := range conns {
		tt = append(tt, TopicType{Topic: c.Topic, Type: c.Type})
	}
	cfg := Config{}
	cfg.Cameras, cfg.Joints = Discover(tt)
	seen := map[string]bool{}
	for _, t := range append(append([]string(nil), cfg.Cameras...), cfg.Joints...) {
		seen[t] = true
	}
	for _, c := range conns {
		if !seen[c.Topic] {
			seen[c.Topic] = true
			cfg.FSM = append(cfg.FSM, FSMTopic{Topic: c.Topic, Dynamic: c.Type != msg.TypeString})
		}
	}
	return cfg
}

// FuzzReplayBag: ROS1 bag bytes through bag.Reader and capture's
// per-message pipeline (edged replay's input path) never panic, and
// Handle never fails on a message of a captured topic: damage is the
// reader's to report. Seeds: testdata/fuzz/FuzzReplayBag (a bag with a
// message of every role from testdata/replaybag.py, truncated and
// corrupted variants) and the bag package's tiny bags.
func FuzzReplayBag(f *testing.F) {
	for _, seed := range bagSeeds(f) {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		replayBagBytes(t, b)
	})
}

// TestReplayBagReportsDamage: a bag cut short or with a corrupted byte
// is replayed as far as it can be read, and its damage is reported,
// never taken silently: fewer messages than the whole bag come with a
// problem or an error.
func TestReplayBagReportsDamage(t *testing.T) {
	whole := readSeed(t, filepath.Join("testdata", "fuzz", "FuzzReplayBag", "whole"))
	all, damage := replayBagBytes(t, whole)
	if all != 5 || len(damage) != 0 {
		t.Fatalf("the whole bag: %d messages, damage %q", all, damage)
	}
	for _, tc := range damagedVariants(whole) {
		t.Run(tc.name, func(t *testing.T) {
			n, damage := replayBagBytes(t, tc.b)
			if n < all && len(damage) == 0 {
				t.Fatalf("%d of %d messages and no damage reported", n, all)
			}
		})
	}
}

type variant struct {
	name string
	b    []byte
}

// damagedVariants are b cut at several points and with single bytes
// flipped across the file.
func damagedVariants(b []byte) []variant {
	var out []variant
	for _, frac := range []int{1, 3, 5, 7, 9} {
		n := len(b) * frac / 10
		out = append(out, variant{fmt.Sprintf("cut at %d", n), b[:n]})
	}
	for _, frac := range []int{2, 4, 6, 8} {
		c := bytes.Clone(b)
		c[len(c)*frac/10] ^= 0xff
		out = append(out, variant{fmt.Sprintf("flipped byte %d", len(c)*frac/10), c})
	}
	return out
}

// bagSeeds are the committed seeds, their damaged variants and the bag
// package's tiny bags.
func bagSeeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, dir := range []string{filepath.Join("testdata", "fuzz", "FuzzReplayBag"), filepath.Join("..", "bag", "testdata", "fuzz", "FuzzReader")} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			b := readSeed(t, f)
			out = append(out, b)
			for _, v := range damagedVariants(b) {
				out = append(out, v.b)
			}
		}
	}
	return out
}

// readSeed reads a seed file of the go fuzz format holding one []byte.
func readSeed(t testing.TB, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("seed %s: %v", path, err)
	}
	lines := strings.SplitN(string(raw), "\n", 3)
	if len(lines) < 2 || !strings.HasPrefix(lines[1], "[]byte(") {
		t.Fatalf("seed %s: not a go fuzz v1 []byte seed", path)
	}
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatalf("seed %s: %v", path, err)
	}
	return []byte(s)
}

// TestWriteReplayBagSeed writes testdata/fuzz/FuzzReplayBag/whole from
// the bag testdata/replaybag.py writes, when CAPTURE_WRITE_FUZZ_SEEDS
// names its directory.
func TestWriteReplayBagSeed(t *testing.T) {
	dir := os.Getenv("CAPTURE_WRITE_FUZZ_SEEDS")
	if dir == "" {
		t.Skip("set CAPTURE_WRITE_FUZZ_SEEDS=DIR (run testdata/replaybag.py DIR first) to regenerate the seed")
	}
	b, err := os.ReadFile(filepath.Join(dir, "replay.bag"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("testdata", "fuzz", "FuzzReplayBag")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", b)
	if err := os.WriteFile(filepath.Join(out, "whole"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
