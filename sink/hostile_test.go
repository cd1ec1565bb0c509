package sink

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/uplink/wire"
)

func newTestSink(t *testing.T, cfg Config) *Sink {
	t.Helper()
	if cfg.Out == "" {
		cfg.Out = t.TempDir()
	}
	s, err := New(cfg, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func mustHandle(t *testing.T, s *Sink, topic string, payloads ...[]byte) {
	t.Helper()
	for _, p := range payloads {
		if err := s.Handle(topic, p); err != nil {
			t.Fatal(err)
		}
	}
}

// TestIncompleteSlotsArePerRobot: a publisher holding the most
// incomplete messages it may (as robot "evil") neither blocks another
// robot's chunked message nor gets its own refused message acknowledged:
// the refusal asks the broker to redeliver.
func TestIncompleteSlotsArePerRobot(t *testing.T) {
	s := newTestSink(t, Config{})
	const evilTopic = "edged/evil/segment"
	refused := 0
	for i := range 300 {
		m := wire.New(wire.NewID(), "evil", testEp, wire.KindSegment, uint64(i), 1, bytes.Repeat([]byte("x"), 3000))
		p, _ := wire.Split(m, 1200)
		if err := s.Handle(evilTopic, p[0]); err != nil {
			if !errors.Is(err, ErrRetry) {
				t.Fatalf("message %d refused with %v, want an unacknowledged refusal (ErrRetry)", i, err)
			}
			refused++
		}
	}
	if refused == 0 {
		t.Error("no per-robot cap on incomplete messages")
	}
	mustHandle(t, s, topicSeg, chunkedSegment(t, 4)...)
	if st := s.Stats(); st.Delivered != 1 {
		t.Fatalf("the real robot's chunked message was not delivered: %+v", st)
	}
}

// TestForgedChunksDoNotPoison: chunks that disagree with the real
// message (another chunk count, size or checksum, or another body for
// the same index), even when they arrive first, are discarded without
// killing the message.
func TestForgedChunksDoNotPoison(t *testing.T) {
	for _, tc := range []struct {
		name  string
		forge func(real *wire.Envelope) *wire.Envelope
	}{
		{"chunk count", func(r *wire.Envelope) *wire.Envelope { r.Chunks, r.Chunk = 2, 1; return r }},
		{"size", func(r *wire.Envelope) *wire.Envelope { r.Size = 9999; return r }},
		{"checksum", func(r *wire.Envelope) *wire.Envelope { r.CRC ^= 1; return r }},
		{"body", func(r *wire.Envelope) *wire.Envelope { r.Body = bytes.Repeat([]byte("F"), len(r.Body)); return r }},
		{"sequence", func(r *wire.Envelope) *wire.Envelope { r.Seq = 99; return r }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newTestSink(t, Config{})
			p := chunkedSegment(t, 4)
			var second wire.Envelope
			if _, err := second.UnmarshalMsg(p[1]); err != nil {
				t.Fatal(err)
			}
			forged := tc.forge(&second)
			s.Handle(topicSeg, enc(t, forged)) // before the real chunks: may be held or refused
			mustHandle(t, s, topicSeg, p...)
			if st := s.Stats(); st.Delivered != 1 {
				t.Fatalf("the real message was not delivered: %+v", st)
			}
			s.Handle(topicSeg, enc(t, forged)) // after: a duplicate id, dropped
			if st := s.Stats(); st.Delivered != 1 {
				t.Fatalf("stats %+v", st)
			}
		})
	}
}

// TestFilesAreNeverOverwritten: a message whose file exists with other
// content is refused and counted; the same content again is a no-op.
func TestFilesAreNeverOverwritten(t *testing.T) {
	out := t.TempDir()
	s := newTestSink(t, Config{Out: out})
	mustHandle(t, s, topicSeg, enc(t, segEnv(t, 7)))
	orig := heldSegments(t, out)[7]

	mustHandle(t, s, topicSeg, enc(t, segEnv(t, 7))) // same content, new id: fine
	forged := segEnv(t, 7)
	b, _ := (&wire.Segment{Index: 7, Label: "FORGED"}).MarshalMsg(nil)
	forged = wire.New(forged.ID, forged.Robot, forged.Episode, forged.Kind, forged.Seq, 1, b)
	if err := s.Handle(topicSeg, enc(t, forged)); err == nil {
		t.Error("a forged segment replaced an existing one")
	}
	if now := heldSegments(t, out); len(now) != 1 || now[7].Label != orig.Label || orig.Label != "PICK" {
		t.Fatalf("segment 7 overwritten or duplicated: %+v", now)
	}
	if st := s.Stats(); st.Conflicts != 1 {
		t.Errorf("conflicts %d, want 1", st.Conflicts)
	}

	// Manifests: episode_end replaces episode_start, never another end.
	man := func(kind string, closed bool, outcome string) []byte {
		b, _ := (&wire.Manifest{ID: testEp, Robot: "arm-01", Start: 1, Closed: closed, Outcome: outcome}).MarshalMsg(nil)
		return enc(t, wire.New(wire.NewID(), "arm-01", testEp, kind, 0, 1, b))
	}
	mustHandle(t, s, "edged/arm-01/episode_start", man(wire.KindEpisodeStart, false, ""))
	mustHandle(t, s, "edged/arm-01/episode_end", man(wire.KindEpisodeEnd, true, "completed"))
	mustHandle(t, s, "edged/arm-01/episode_end", man(wire.KindEpisodeEnd, true, "completed"))
	if err := s.Handle("edged/arm-01/episode_end", man(wire.KindEpisodeEnd, true, "aborted")); err == nil {
		t.Error("a second, different episode_end replaced the first")
	}
	mustHandle(t, s, "edged/arm-01/episode_start", man(wire.KindEpisodeStart, false, ""))
	m, _ := os.ReadFile(filepath.Join(out, episode.EpisodesDir, testEp, episode.ManifestFile))
	if !bytes.Contains(m, []byte(`"outcome": "completed"`)) || !bytes.Contains(m, []byte(`"closed": true`)) {
		t.Errorf("manifest:\n%s", m)
	}
}

// TestNamesCannotCollideWithTheSinksFiles: an episode named like the
// sink's own status.json is refused (by the same rule the robot applies
// before sending), and the robot's status still lands.
func TestNamesCannotCollideWithTheSinksFiles(t *testing.T) {
	out := t.TempDir()
	s := newTestSink(t, Config{Out: out})
	e := segEnv(t, 1)
	e.Episode = "status.json"
	if err := e.Validate(); err == nil {
		t.Error("wire accepts an episode named status.json")
	}
	if err := s.Handle(topicSeg, enc(t, e)); err == nil {
		t.Error("sink accepts an episode named status.json")
	}
	body, _ := (&wire.Status{State: "online"}).MarshalMsg(nil)
	mustHandle(t, s, "edged/arm-01/status", enc(t, wire.New(wire.NewID(), "arm-01", "", wire.KindStatus, 0, 1, body)))
	if b, err := os.ReadFile(StatusPath(out, "arm-01")); err != nil || !bytes.Contains(b, []byte("online")) {
		t.Fatalf("status.json: %v %s", err, b)
	}
}

// TestFailedWriteIsNotAcknowledged: a write failure (disk full, I/O
// error) returns ErrRetry (the handler then withholds the MQTT
// acknowledgement), records no id and keeps a chunked message's chunks,
// so the redelivered message lands once the fault clears.
func TestFailedWriteIsNotAcknowledged(t *testing.T) {
	for _, fault := range []error{syscall.ENOSPC, syscall.EIO} {
		out := t.TempDir()
		s := newTestSink(t, Config{Out: out})
		failing := true
		failWrites(s, func() bool { return failing }, fault)
		whole := enc(t, segEnv(t, 7))
		chunks := chunkedSegment(t, 8)
		body, _ := (&wire.Status{State: "online"}).MarshalMsg(nil)
		status := enc(t, wire.New(wire.NewID(), "arm-01", "", wire.KindStatus, 0, 1, body))
		for name, try := range map[string]func() error{
			"whole": func() error { return s.Handle(topicSeg, whole) },
			"chunked": func() error {
				mustHandle(t, s, topicSeg, chunks[:len(chunks)-1]...)
				return s.Handle(topicSeg, chunks[len(chunks)-1])
			},
			"status": func() error { return s.Handle("edged/arm-01/status", status) },
		} {
			if err := try(); !errors.Is(err, ErrRetry) || !errors.Is(err, fault) {
				t.Errorf("%v, %s: %v, want ErrRetry wrapping the fault", fault, name, err)
			}
		}
		failing = false
		mustHandle(t, s, topicSeg, whole, chunks[len(chunks)-1]) // the broker's redelivery
		mustHandle(t, s, "edged/arm-01/status", status)
		if st := s.Stats(); st.Delivered != 2 || st.Statuses != 1 || st.Retried != 3 {
			t.Errorf("%v: stats %+v", fault, st)
		}
	}
}
