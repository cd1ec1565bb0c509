package uplink_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/internal/s3test"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/sink"
	"github.com/edged-robotics/edged/uplink"
)

// tlog writes a sink's warnings into the test's log.
type tlog struct{ t *testing.T }

func (l tlog) Write(b []byte) (int, error) { l.t.Log(string(b)); return len(b), nil }

// countingBlobs counts the writes that created or changed each blob.
type countingBlobs struct {
	blob.Blobs
	mu     sync.Mutex
	writes map[string]int
}

func (c *countingBlobs) Put(name string, b []byte, cond blob.Cond) (string, error) {
	v, err := c.Blobs.Put(name, b, cond)
	if err == nil {
		c.mu.Lock()
		c.writes[name]++
		c.mu.Unlock()
	}
	return v, err
}

func (c *countingBlobs) count(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.writes[name]
}

// TestSharedSubscriptionSinks: two sinks of one group ($share/) write one
// store while six robots ship an episode each at once, with chunked
// sheets: both sinks do work, every file is written exactly once with
// the content sent, every episode is complete and judged complete once,
// and every robot hears its episode acknowledged.
func TestSharedSubscriptionSinks(t *testing.T) {
	out := t.TempDir()
	testSharedSinks(t, out, blob.Dir{Root: out})
}

// TestSharedSinksOnS3: the same with the store in a real S3 server
// (versitygw), read back where it is (episode.ListBlobs).
func TestSharedSinksOnS3(t *testing.T) {
	srv := s3test.Start(t)
	st, err := s3.Open(context.Background(), srv.URL("fleet"), s3.Options{Getenv: srv.Getenv})
	mustNil(t, err)
	testSharedSinks(t, srv.URL("fleet"), st)
	ms, err := episode.ListBlobs(blob.Sub(st, episode.EpisodesDir))
	if err != nil || len(ms) != 6 {
		t.Errorf("the store lists %d episodes (%v), want 6", len(ms), err)
	}
}

func testSharedSinks(t *testing.T, out string, blobs blob.Blobs) {
	b := brokertest.Start(t, brokertest.Options{})
	store := &countingBlobs{Blobs: blobs, writes: map[string]int{}}
	var mu sync.Mutex
	completed := map[string]int{}
	var sinks []*sink.Sink
	for i := range 2 {
		s, err := sink.New(sink.Config{Broker: b.URL, Out: out, Store: store, Group: "cloud", StateDir: t.TempDir(),
			ClientID: fmt.Sprint("sink-", i), OnComplete: func(_, ep string) { mu.Lock(); completed[ep]++; mu.Unlock() }},
			slog.New(slog.NewTextHandler(tlog{t}, &slog.HandlerOptions{Level: slog.LevelWarn})))
		mustNil(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); s.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-done; s.Close() })
		poll.Until(t, 10*time.Second, "sink subscribed", func() bool { return s.Stats().Connects > 0 })
		sinks = append(sinks, s)
	}

	const robots, sheetsPer = 6, 3
	type shipped struct {
		robot, ep string
		sheets    []*sheet.Sheet
		u         *testUplink
	}
	var eps []shipped
	var uploaded sync.Map
	var wg sync.WaitGroup
	for r := range robots {
		name := fmt.Sprintf("arm-%02d", r)
		cfg := uplink.Config{Robot: name, Dir: t.TempDir(), Broker: b.URL, MaxPayload: 16 << 10, OutboxBytes: 64 << 20,
			Version: "test", MinBackoff: 50 * time.Millisecond, MaxBackoff: 300 * time.Millisecond}
		u, err := openUplink(cfg, uplink.Options{Logger: quiet, OnUploaded: func(ep string) { uploaded.Store(ep, true) }})
		mustNil(t, err)
		t.Cleanup(func() { u.Close() })
		sh := shipped{robot: name, ep: episode.NewID(name, epStart, ""), u: u}
		for i := 1; i <= sheetsPer; i++ {
			sh.sheets = append(sh.sheets, fakeSheet(i, 40_000+1000*r+i))
		}
		eps = append(eps, sh)
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := episode.Manifest{Format: 1, ID: sh.ep, Robot: name, Start: epStart, Created: epStart}
			if err := u.EpisodeStarted(m); err != nil {
				t.Error(err)
			}
			for i, s := range sh.sheets {
				seg := segment(i)
				if err := u.Segment(m, seg); err != nil {
					t.Error(err)
				}
				if err := u.Sheet(sh.ep, s); err != nil {
					t.Error(err)
				}
			}
			m.Closed, m.End, m.Outcome, m.EndReason, m.Segments = true, epStart.Add(time.Minute), episode.Completed, episode.EndIdle, sheetsPer
			if err := u.EpisodeEnded(m); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		// What each side holds, for a failure to say where it stopped.
		for i, s := range sinks {
			t.Logf("sink %d: %+v", i, s.Stats())
		}
		for _, e := range eps {
			_, acked := uploaded.Load(e.ep)
			m, _, err := store.Get(episode.EpisodesDir+"/"+e.ep+"/manifest.json", 1<<20)
			l, _ := store.List(episode.EpisodesDir + "/" + e.ep + "/")
			t.Logf("%s: acknowledged %v, uplink %+v; %d files in the store, manifest (%v):\n%s", e.ep, acked, e.u.Stats(), len(l), err, m)
		}
	})
	poll.Until(t, 60*time.Second, "every episode acknowledged to its robot", func() bool {
		for _, e := range eps {
			if _, ok := uploaded.Load(e.ep); !ok {
				return false
			}
		}
		return true
	})

	for i, s := range sinks {
		st := s.Stats()
		t.Logf("sink %d: delivered %d, chunks %d, duplicates %d, completed %d", i, st.Delivered, st.Chunks, st.Duplicates, st.Completed)
		if st.Delivered == 0 || st.Rejected != 0 || st.Conflicts != 0 {
			t.Errorf("sink %d: %+v (each must deliver, none reject)", i, st)
		}
	}
	for _, e := range eps {
		if completed[e.ep] != 1 {
			t.Errorf("%s judged complete %d times", e.ep, completed[e.ep])
		}
		got, err := episode.LoadBlobs(blob.Sub(store, episode.EpisodesDir), e.ep)
		mustNil(t, err)
		if !got.Manifest.Complete || len(got.Segments) != sheetsPer || len(got.Problems) != 0 {
			t.Errorf("%s: complete %v, %d segments, problems %v", e.ep, got.Manifest.Complete, len(got.Segments), got.Problems)
		}
		for _, s := range e.sheets {
			base := e.ep + "/sheets/camera_color/" + sheet.Name(s)
			jpg, _, _ := store.Get(episode.EpisodesDir+"/"+base+".jpg", 1<<20)
			meta, _, _ := store.Get(episode.EpisodesDir+"/"+base+".json", 1<<20)
			want, _ := json.Marshal(&s.Meta)
			if !bytes.Equal(jpg, s.JPEG) || !bytes.Equal(meta, want) {
				t.Errorf("%s differs from what was sent", base)
			}
			snip := fmt.Sprintf("%s/%s/snippets/camera_color/sheet-%04d.msgpack.zst", episode.EpisodesDir, e.ep, s.Meta.Index)
			for _, name := range []string{episode.EpisodesDir + "/" + base + ".jpg", episode.EpisodesDir + "/" + base + ".json", snip} {
				if n := store.count(name); n != 1 {
					t.Errorf("%s written %d times", name, n)
				}
			}
		}
	}
	if l, _ := store.List(".sink/chunks/"); len(l) != 0 {
		t.Errorf("%d staged chunks left behind", len(l))
	}
	// Every ack's record is removed once the broker confirmed the ack
	// (right after the robot may have received it).
	poll.Until(t, 30*time.Second, "acknowledgement records removed after their PUBACK", func() bool {
		l, err := store.List(".sink/acks/")
		return err == nil && len(l) == 0
	})
}
