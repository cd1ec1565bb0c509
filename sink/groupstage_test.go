package sink

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/internal/s3test"
	"github.com/edged-robotics/edged/uplink/wire"
)

// groupStore is a store two sinks of a group share: a directory, or a
// prefix of a real S3 server (versitygw). start runs in the store's
// subtest (the server lives as long as it) and returns what opens a
// fresh store in each of its subtests.
type groupStore struct {
	name  string
	start func(t *testing.T) (open func(t *testing.T) (out string, store blob.Blobs))
}

var groupStores = []groupStore{
	{"directory", func(*testing.T) func(t *testing.T) (string, blob.Blobs) {
		return func(t *testing.T) (string, blob.Blobs) {
			out := t.TempDir()
			return out, blob.Dir{Root: out}
		}
	}},
	{"s3", func(t *testing.T) func(t *testing.T) (string, blob.Blobs) {
		srv := s3test.Start(t)
		n := 0
		return func(t *testing.T) (string, blob.Blobs) {
			n++
			url := srv.URL(fmt.Sprint("group-", n))
			st, err := s3.Open(context.Background(), url, s3.Options{Getenv: srv.Getenv})
			if err != nil {
				t.Fatal(err)
			}
			return url, st
		}
	}},
}

// groupSinks are n sinks of group "g" on out/store (each its own state).
func groupSinks(t *testing.T, n int, out string, store blob.Blobs, cfg Config) []*Sink {
	t.Helper()
	var sinks []*Sink
	for i := range n {
		c := cfg
		c.Out, c.Store, c.Group, c.StateDir, c.ClientID = out, store, "g", t.TempDir(), fmt.Sprint("sink-", i)
		sinks = append(sinks, newTestSink(t, c))
	}
	return sinks
}

// firstChunks are the first chunks of n messages of robot that never
// complete (each of 3000 bytes in chunks of at most 1200).
func firstChunks(t *testing.T, robot string, n int) [][]byte {
	t.Helper()
	var out [][]byte
	for i := range n {
		m := wire.New(wire.NewID(), robot, robot+"-20231114T221320.000Z", wire.KindSegment, uint64(i), 1, bytes.Repeat([]byte("x"), 3000))
		p, err := wire.Split(m, 1200)
		if err != nil || len(p) < 3 {
			t.Fatalf("%d chunks, %v", len(p), err)
		}
		out = append(out, p[0])
	}
	return out
}

// staged is what the group holds staged: messages and bytes per robot.
func staged(t *testing.T, store blob.Blobs) stagedUse {
	t.Helper()
	l, err := store.List(chunksDir)
	if err != nil {
		t.Fatal(err)
	}
	return useOf(l)
}

// TestGroupCapsOnStagedChunks: the caps on incomplete messages hold for
// what a sink group staged, whichever sink each chunk reached. Two
// robots sending first chunks that never complete, alternately to two
// sinks, staged without a cap (3,000 files, 317 MB in the attack, past
// 64 messages and 128 MiB per robot, 256 MiB in all); a refused chunk
// is left to the broker to redeliver (ErrRetry).
func TestGroupCapsOnStagedChunks(t *testing.T) {
	for _, gs := range groupStores {
		t.Run(gs.name, func(t *testing.T) { testGroupCaps(t, gs.start(t)) })
	}
}

func testGroupCaps(t *testing.T, open func(t *testing.T) (string, blob.Blobs)) {
	{
		for _, tc := range []struct {
			name string
			cfg  Config
			ok   func(u stagedUse) bool
		}{
			{"messages per robot", Config{MaxPartialPerRobot: 4}, func(u stagedUse) bool {
				return u.robots["evil-a"].n == 4 && u.robots["evil-b"].n == 4
			}},
			{"messages in all", Config{MaxPartial: 6}, func(u stagedUse) bool { return len(u.messages) == 6 }},
			{"bytes in all", Config{MaxPartialBytes: 8000}, func(u stagedUse) bool { return u.bytes > 0 && u.bytes <= 8000 }},
		} {
			t.Run(tc.name, func(t *testing.T) {
				out, store := open(t)
				sinks := groupSinks(t, 2, out, store, tc.cfg)
				refused := 0
				for i := range 20 {
					for _, robot := range []string{"evil-a", "evil-b"} {
						err := sinks[i%2].Handle("edged/"+robot+"/segment", firstChunks(t, robot, 1)[0])
						switch {
						case errors.Is(err, ErrRetry):
							refused++
						case err != nil:
							t.Fatalf("a chunk over the caps: %v, want a refusal the broker redelivers (ErrRetry)", err)
						}
					}
				}
				if u := staged(t, store); !tc.ok(u) || refused == 0 {
					t.Fatalf("staged %d messages, %d bytes (%+v), %d refused: the group's cap does not hold",
						len(u.messages), u.bytes, u.robots, refused)
				}
			})
		}
	}
}

// TestRestartedGroupExpiresWhatWasStaged: messages staged by sinks that
// then stop are expired by the sinks that start next (or by any sink
// of the group), counted, and leave nothing behind: no chunk, no
// directory, no lock file. Two robots' first chunks through mosquitto,
// both sinks restarted: 200 staged chunks stayed for good (staged 0,
// expired 0 eleven minutes later), and every chunked message left two
// directories and a lock file.
func TestRestartedGroupExpiresWhatWasStaged(t *testing.T) {
	for _, gs := range groupStores {
		t.Run(gs.name, func(t *testing.T) {
			b := brokertest.Start(t, brokertest.Options{})
			out, store := gs.start(t)(t)
			run := func(id string) (*Sink, func()) {
				s, err := New(Config{Broker: b.URL, Out: out, Store: store, Group: "g", StateDir: t.TempDir(),
					ClientID: id, ChunkTimeout: 2 * time.Second}, quiet)
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { defer close(done); s.Run(ctx) }()
				poll.Until(t, 10*time.Second, "sink subscribed", func() bool { return s.Stats().Connects > 0 })
				stop := func() { cancel(); <-done; s.Close() }
				return s, stop
			}
			_, stop0 := run("first-0")
			_, stop1 := run("first-1")
			const per = 10
			for _, robot := range []string{"evil-a", "evil-b"} {
				publishRaw(t, b.URL, robot, "edged/"+robot+"/segment", firstChunks(t, robot, per)...)
			}
			poll.Until(t, 20*time.Second, "every first chunk staged", func() bool { return len(staged(t, store).messages) == 2*per })
			stop0()
			stop1()

			next0, stop0 := run("next-0")
			defer stop0()
			next1, stop1 := run("next-1")
			defer stop1()
			poll.Until(t, 30*time.Second, "the staged messages expired by the sinks started next", func() bool {
				return len(staged(t, store).messages) == 0 && next0.Stats().Expired+next1.Stats().Expired >= 2*per
			})
			if dir, ok := store.(blob.Dir); ok {
				if left := leftUnder(t, filepath.Join(dir.Root, ".sink", "chunks")); len(left) != 0 {
					t.Fatalf("left behind under .sink/chunks: %v", left)
				}
			}
		})
	}
}

// leftUnder lists every file and directory under root (none when root
// is gone).
func leftUnder(t *testing.T, root string) []string {
	t.Helper()
	var left []string
	err := filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if p != root {
			left = append(left, strings.TrimPrefix(p, root))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return left
}

// TestNothingLeftPerMessage: chunked messages assembled by a group
// leave no directory or lock file where their chunks were staged, and
// their delivered marks go once no chunk of them can still be on its
// way (twice ChunkTimeout): each left two directories and a lock file
// for good (6,003 directories after a flood).
func TestNothingLeftPerMessage(t *testing.T) {
	out := t.TempDir()
	sinks := groupSinks(t, 2, out, nil, Config{ChunkTimeout: time.Minute})
	now := time.Now()
	for _, s := range sinks {
		s.now = func() time.Time { return now }
	}
	for i := range 5 {
		parts := chunkedSegment(t, int64(i))
		for k, p := range parts {
			if err := sinks[k%2].Handle(topicSeg, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	if d := sinks[0].Stats().Delivered + sinks[1].Stats().Delivered; d != 5 {
		t.Fatalf("delivered %d, want 5", d)
	}
	if left := leftUnder(t, filepath.Join(out, ".sink", "chunks")); len(left) != 0 {
		t.Fatalf("left behind under .sink/chunks: %v", left)
	}
	for range 2 { // one look notes the marks, the next removes those past their time
		now = now.Add(2*time.Minute + time.Second)
		sinks[0].expire()
	}
	if left, _ := os.ReadDir(filepath.Join(out, ".sink", "done")); len(left) != 0 {
		t.Fatalf("%d delivered marks left", len(left))
	}
}
