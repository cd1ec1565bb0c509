package sink

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/uplink/wire"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// testEp is an episode id of robot arm-01 (episode.NewID's form).
const testEp = "arm-01-20231114T221320.000Z"

// heldSegments reads the segments the sink holds of testEp through the
// episode store's reader.
func heldSegments(t *testing.T, out string) map[int]episode.Segment {
	t.Helper()
	e, err := episode.Load(filepath.Join(out, episode.EpisodesDir), testEp)
	if err != nil {
		return nil
	}
	m := map[int]episode.Segment{}
	for _, s := range e.Segments {
		m[s.Index] = s
	}
	return m
}

// failWrites makes every write and append of s return fault while on()
// says so.
func failWrites(s *Sink, on func() bool, fault error) {
	s.writeFn = func(path string, b []byte) error {
		if on() {
			return &os.PathError{Op: "write", Path: path, Err: fault}
		}
		return writeFile(path, b)
	}
}

func segEnv(t *testing.T, idx int64) *wire.Envelope {
	b, err := (&wire.Segment{Index: idx, Label: "PICK", Source: "/s", Kind: "string", Outcome: "completed"}).MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	return wire.New(wire.NewID(), "arm-01", testEp, wire.KindSegment, uint64(idx), 1, b)
}

func enc(t *testing.T, e *wire.Envelope) []byte {
	b, err := e.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

const topicSeg = "edged/arm-01/segment"

// TestHostilePublisher: garbage, absurd chunk counts, wrong checksums,
// mismatched chunks and topic spoofing are rejected and counted; the
// sink keeps working and nothing lands outside its directory.
func TestHostilePublisher(t *testing.T) {
	out := t.TempDir()
	s, err := New(Config{Out: out, MaxPartial: 4, MaxPartialBytes: 1 << 20}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bad := func(name, topic string, payload []byte) {
		t.Helper()
		if err := s.Handle(topic, payload); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	bad("garbage", topicSeg, []byte("\xde\xad\xbe\xef not msgpack"))
	bad("empty", topicSeg, nil)
	bad("huge array header", topicSeg, []byte{0xdd, 0xff, 0xff, 0xff, 0xff})
	bad("huge bin header", topicSeg, []byte{0x81, 0xa4, 'b', 'o', 'd', 'y', 0xc6, 0x7f, 0xff, 0xff, 0xff})

	e := segEnv(t, 1)
	e.CRC ^= 1
	bad("wrong checksum", topicSeg, enc(t, e))
	e = segEnv(t, 1)
	e.Chunks = 1 << 30
	bad("huge chunk count", topicSeg, enc(t, e))
	e = segEnv(t, 1)
	e.Robot = "../../etc"
	bad("path in robot", "edged/../../etc/segment", enc(t, e))
	bad("topic spoofing", "edged/other/segment", enc(t, segEnv(t, 1)))

	// A chunked message whose reassembled checksum is wrong.
	body := bytes.Repeat([]byte("x"), 3000)
	c := wire.New(wire.NewID(), "arm-01", testEp, wire.KindSegment, 2, 1, body)
	c.CRC ^= 1
	payloads, err := wire.Split(c, 1200)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range payloads[:len(payloads)-1] {
		if err := s.Handle(topicSeg, p); err != nil {
			t.Fatal(err)
		}
	}
	bad("reassembled checksum", topicSeg, payloads[len(payloads)-1])

	// A chunk that disagrees with the first one is held apart (see
	// TestForgedChunksDoNotPoison) and takes a slot.
	c = wire.New(wire.NewID(), "arm-01", testEp, wire.KindSegment, 3, 1, body)
	payloads, _ = wire.Split(c, 1200)
	s.Handle(topicSeg, payloads[0])
	d := *c
	d.Chunks, d.Chunk, d.Size, d.Body = 3, 1, 9999, body[:10]
	s.Handle(topicSeg, enc(t, &d))

	// Too many incomplete messages held: refused, unacknowledged.
	for i := range 5 {
		m := wire.New(wire.NewID(), "arm-01", testEp, wire.KindSegment, uint64(10+i), 1, body)
		p, _ := wire.Split(m, 1200)
		err := s.Handle(topicSeg, p[0])
		if i >= 4 && !errors.Is(err, ErrRetry) {
			t.Errorf("partial cap not enforced: %v", err)
		}
	}

	// Still works, and drops a duplicate.
	good := enc(t, segEnv(t, 7))
	if err := s.Handle(topicSeg, good); err != nil {
		t.Fatal(err)
	}
	if err := s.Handle(topicSeg, good); err != nil {
		t.Fatal(err)
	}
	st := s.Stats()
	if st.Delivered != 1 || st.Duplicates != 1 || st.Rejected < 9 || st.Retried == 0 {
		t.Fatalf("stats %+v", st)
	}
	if _, ok := heldSegments(t, out)[7]; !ok {
		t.Fatal("segment 7 not held")
	}
	// Dedupe survives a restart.
	s.Close()
	s2, err := New(Config{Out: out}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	s2.Handle(topicSeg, good)
	if st := s2.Stats(); st.Duplicates != 1 || st.Delivered != 0 {
		t.Fatalf("after restart: %+v", st)
	}
}

func TestChunkReassemblyOutOfOrder(t *testing.T) {
	s, err := New(Config{Out: t.TempDir()}, quiet)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b, _ := (&wire.Segment{Index: 4, Label: string(bytes.Repeat([]byte("L"), 5000))}).MarshalMsg(nil)
	p, err := wire.Split(wire.New(wire.NewID(), "arm-01", testEp, wire.KindSegment, 4, 1, b), 1100)
	if err != nil || len(p) < 4 {
		t.Fatalf("%d chunks, %v", len(p), err)
	}
	for i := len(p) - 1; i >= 0; i-- {
		if err := s.Handle(topicSeg, p[i]); err != nil {
			t.Fatal(err)
		}
		s.Handle(topicSeg, p[i]) // a duplicate chunk
	}
	if st := s.Stats(); st.Delivered != 1 || st.Rejected != 0 {
		t.Fatalf("stats %+v", st)
	}
}
