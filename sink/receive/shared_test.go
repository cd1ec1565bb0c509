package receive

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/blobtest"
	"github.com/edged-robotics/edged/episode"
)

// sharedPair opens two shared receivers on one directory, each through
// its own counting view of it.
func sharedPair(t *testing.T) (dir string, r [2]*Receiver, c [2]*blobtest.Counting) {
	t.Helper()
	dir = t.TempDir()
	for i := range r {
		c[i] = blobtest.NewCounting(blob.Dir{Root: dir})
		var err error
		if r[i], err = Open(dir, Options{Shared: true, Blobs: c[i]}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r[i].Close() })
	}
	return dir, r, c
}

// sharedEpisode is a robot's episode as messages: start, then per sheet
// a contact sheet and its snippet, a segment every other sheet, then
// the end announcing all of it.
func sharedEpisode(id string, sheets int) (start, end episode.Manifest, msgs []func(r *Receiver) (bool, error)) {
	start = episode.Manifest{Format: episode.ManifestFormat, ID: id, Robot: "arm-01", Start: t0, Created: t0}
	for i := range sheets {
		msgs = append(msgs,
			func(r *Receiver) (bool, error) {
				return r.Sheet("arm-01", id, "/cam", episode.SheetName(i), false, []byte{0xff, 0xd8, byte(i)}, []byte(`{}`))
			},
			func(r *Receiver) (bool, error) { return r.Snippet("arm-01", id, "/cam", i, []byte{byte(i)}) })
		if i%2 == 1 {
			msgs = append(msgs, func(r *Receiver) (bool, error) { return r.Segment("arm-01", id, rseg(i/2, "S")) })
		}
	}
	end = start
	end.Closed, end.End, end.Outcome, end.Segments = true, t0.Add(10e9), episode.Completed, sheets/2
	end.Produced = map[string]episode.CameraCounts{"cam": {Sheets: sheets, Snippets: sheets}}
	return start, end, msgs
}

// TestSharedReceiversDoNotContend: two receivers sharing a store take
// turns with the messages of one episode (the round robin of a shared
// subscription). Neither loses a conditional write, the manifest is
// written at the start and at the end only (it used to be rewritten by
// every message, so each receiver's view was stale at every other
// message and it re-read the whole episode), and exactly one of them
// completes the episode, which then reads back whole.
func TestSharedReceiversDoNotContend(t *testing.T) {
	const sheets = 12
	dir, r, c := sharedPair(t)
	start, end, msgs := sharedEpisode(rid, sheets)
	if _, err := r[0].Manifest("arm-01", start); err != nil {
		t.Fatal(err)
	}
	completes := 0
	for i, f := range msgs {
		done, err := f(r[(i+1)%2])
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if done {
			t.Fatalf("message %d completed an episode whose end has not arrived", i)
		}
	}
	for i := range 2 { // the end, then the end again (a redelivery) at the other
		done, err := r[i].Manifest("arm-01", end)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			completes++
		}
	}
	if completes != 1 {
		t.Errorf("%d receivers completed the episode, want 1", completes)
	}
	for i := range r {
		if n := r[i].Races(); n != 0 {
			t.Errorf("receiver %d lost %d conditional writes, want 0", i, n)
		}
	}
	// The start, the end; nothing more (the second end is a no-op).
	if n := c[0].Puts[episode.ManifestFile] + c[1].Puts[episode.ManifestFile]; n != 2 {
		t.Errorf("manifest written %d times for %d messages, want 2 (start, end)", n, len(msgs)+3)
	}
	if n := c[0].Lists + c[1].Lists; n > 4 {
		t.Errorf("%d listings of the episode for %d messages; want at most 4 (the start, the end and its check, the redelivered end)", n, len(msgs)+3)
	}
	checkSharedEpisode(t, dir, rid, sheets)
}

// TestSharedEndBeforeTheRest: with two saturated sinks, the one behind
// gets a robot's messages after the other has taken the robot's end.
// Those messages must not each rewrite the closed manifest (they did:
// the sink behind paid a manifest write per message, fell further
// behind, and two sinks carried 1.4x one); the manifest is written at
// the end and once more by the message that completes the episode,
// while readers meanwhile count the files.
func TestSharedEndBeforeTheRest(t *testing.T) {
	const sheets = 12
	dir, r, c := sharedPair(t)
	start, end, msgs := sharedEpisode(rid, sheets)
	if _, err := r[0].Manifest("arm-01", start); err != nil {
		t.Fatal(err)
	}
	if _, err := r[0].Manifest("arm-01", end); err != nil {
		t.Fatal(err)
	}
	completes := 0
	for i, f := range msgs {
		done, err := f(r[1])
		if err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if done {
			completes++
			if i != len(msgs)-1 {
				t.Errorf("message %d of %d completed the episode", i, len(msgs))
			}
		}
		if i == len(msgs)/2 {
			e, err := episode.Load(dir, rid)
			if err != nil {
				t.Fatal(err)
			}
			if h := e.Manifest.Held; e.Manifest.Complete || h == nil || h.Cameras["cam"].Sheets+h.Cameras["cam"].Snippets == 0 {
				t.Errorf("half way, Load says complete %v held %+v; want incomplete, counting the files", e.Manifest.Complete, h)
			}
		}
	}
	if completes != 1 {
		t.Errorf("%d messages completed the episode, want 1", completes)
	}
	if n := c[0].Puts[episode.ManifestFile] + c[1].Puts[episode.ManifestFile]; n != 3 {
		t.Errorf("manifest written %d times, want 3 (start, end, completion)", n)
	}
	// After the end, a message that cannot complete the episode reads
	// its manifest once and lists it; only the last reads it whole. (Each
	// used to read the whole episode: the manifest twice, segments.rec.)
	if n := c[1].Gets[episode.ManifestFile]; n > len(msgs)+2 {
		t.Errorf("the receiver after the end read the manifest %d times for %d messages, want at most %d", n, len(msgs), len(msgs)+2)
	}
	if n := c[1].Gets[episode.SegmentsFile]; n > sheets/2+2 {
		t.Errorf("the receiver after the end read segments.rec %d times for %d segments, want at most %d", n, sheets/2, sheets/2+2)
	}
	checkSharedEpisode(t, dir, rid, sheets)
}

// TestSharedCompletionInterleavings: the last file and the end manifest
// arrive at two receivers at once. Whichever way their requests
// interleave, exactly one of them completes the episode: the end's
// writer lists the files after its manifest write, the file's writer
// reads the manifest after its file write.
func TestSharedCompletionInterleavings(t *testing.T) {
	const sheets = 4
	for _, tc := range []struct {
		name string
		// hookAt: which receiver's listing lets the other one's message
		// run first: 0, the end's writer lists while the file is being
		// written (before its manifest write); -1, no hook (file first).
		hook bool
	}{
		{"the last file is written between the end's listing and its manifest write", true},
		{"the last file is written before the end arrives", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, r, c := sharedPair(t)
			start, end, msgs := sharedEpisode(rid, sheets)
			if _, err := r[0].Manifest("arm-01", start); err != nil {
				t.Fatal(err)
			}
			for i, f := range msgs[:len(msgs)-1] {
				if _, err := f(r[i%2]); err != nil {
					t.Fatal(err)
				}
			}
			last := msgs[len(msgs)-1]
			var lastDone bool
			var lastErr error
			if tc.hook {
				c[0].BeforeList = func() { lastDone, lastErr = last(r[1]) }
			} else {
				lastDone, lastErr = last(r[1])
			}
			endDone, err := r[0].Manifest("arm-01", end)
			if err != nil || lastErr != nil {
				t.Fatalf("end: %v; last file: %v", err, lastErr)
			}
			if endDone == lastDone {
				t.Errorf("the end completed %v, the last file %v: want exactly one", endDone, lastDone)
			}
			checkSharedEpisode(t, dir, rid, sheets)
		})
	}
}

// checkSharedEpisode: the store holds the episode complete, its
// manifest counting everything, readable by Load.
func checkSharedEpisode(t *testing.T, dir, id string, sheets int) {
	t.Helper()
	e, err := episode.Load(dir, id)
	if err != nil {
		t.Fatal(err)
	}
	m := e.Manifest
	want := episode.CameraCounts{Sheets: sheets, Snippets: sheets}
	if !m.Complete || m.Held == nil || m.Held.Segments != sheets/2 || m.Held.Cameras["cam"] != want ||
		len(e.Segments) != sheets/2 || len(e.Problems) != 0 {
		t.Errorf("manifest complete %v held %+v, %d segments, problems %v", m.Complete, m.Held, len(e.Segments), e.Problems)
	}
}

// TestLoadCountsAnOpenEpisode: a receiver leaves an open episode's
// manifest alone; readers count what its files hold.
func TestLoadCountsAnOpenEpisode(t *testing.T) {
	dir, r, _ := sharedPair(t)
	start, _, msgs := sharedEpisode(rid, 6)
	if _, err := r[0].Manifest("arm-01", start); err != nil {
		t.Fatal(err)
	}
	for i, f := range msgs {
		if _, err := f(r[i%2]); err != nil {
			t.Fatal(err)
		}
	}
	e, err := episode.Load(dir, rid)
	if err != nil {
		t.Fatal(err)
	}
	if h := e.Manifest.Held; h == nil || h.Segments != 3 || h.Cameras["cam"] != (episode.CameraCounts{Sheets: 6, Snippets: 6}) {
		t.Errorf("held %s, want 3 segments, 6 sheets and 6 snippets", fmt.Sprint(h))
	}
}

// TestSharedReceiversConcurrently: two receivers sharing a store, each
// called from several goroutines at once (a sink handles the messages
// of different robots in parallel), take the messages of several
// episodes in any interleaving; every episode ends complete, completed
// by exactly one call (run with -race).
func TestSharedReceiversConcurrently(t *testing.T) {
	const episodes, sheets = 6, 8
	dir, r, _ := sharedPair(t)
	var completes [episodes]atomic.Int32
	var wg sync.WaitGroup
	ids := make([]string, episodes)
	for k := range episodes {
		ids[k] = episode.NewID("arm-01", t0.Add(time.Duration(k)*time.Minute), "")
		start, end, msgs := sharedEpisode(ids[k], sheets)
		msgs = append([]func(*Receiver) (bool, error){func(r *Receiver) (bool, error) { return r.Manifest("arm-01", start) }}, msgs...)
		msgs = append(msgs, func(r *Receiver) (bool, error) { return r.Manifest("arm-01", end) })
		for w := range 2 { // each receiver takes every other message, in its own goroutine
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(msgs); i += 2 {
					done, err := msgs[i](r[w])
					if err != nil {
						t.Errorf("episode %d message %d: %v", k, i, err)
						return
					}
					if done {
						completes[k].Add(1)
					}
				}
			}()
		}
	}
	wg.Wait()
	for k := range episodes {
		if n := completes[k].Load(); n != 1 {
			t.Errorf("episode %d completed %d times, want once", k, n)
		}
		checkSharedEpisode(t, dir, ids[k], sheets)
	}
	t.Logf("races lost: %d, %d", r[0].Races(), r[1].Races())
}

// TestSharedLateFileAmidInflow: a late file of a closed, incomplete
// episode while other sinks keep adding files (each listing finds one
// more) is taken: its writer counts what it listed and returns. Every
// commit of a closed, incomplete manifest used to read the episode
// again, and again while files kept arriving, until it gave up ("lost
// 16 races; will retry") although its own write and manifest had
// succeeded, and the sink ended its session for a redelivery. Only the
// commit that closes the manifest must read again: a file written after
// it finds the manifest closed and counts itself.
func TestSharedLateFileAmidInflow(t *testing.T) {
	const sheets = 40
	_, r, c := sharedPair(t)
	start, end, _ := sharedEpisode(rid, sheets)
	if _, err := r[0].Manifest("arm-01", start); err != nil {
		t.Fatal(err)
	}
	if done, err := r[0].Manifest("arm-01", end); err != nil || done {
		t.Fatalf("end: completed %v, err %v; want incomplete", done, err)
	}
	// Another sink's files land between each of r[1]'s listings (their
	// writers count them themselves: here only their files matter).
	var n int
	var hook func()
	hook = func() {
		n++
		name := fmt.Sprintf("%s/%s/%s/%s.json", rid, episode.SheetsDir, episode.CameraDir("/cam"), episode.SheetName(sheets-n))
		if _, err := c[0].Blobs.Put(name, []byte(`{}`), blob.Cond{IfAbsent: true}); err != nil {
			t.Error(err)
		}
		if n < sheets-1 {
			c[1].Mu.Lock()
			c[1].BeforeList = hook
			c[1].Mu.Unlock()
		}
	}
	c[1].BeforeList = hook
	if _, err := r[1].Sheet("arm-01", rid, "/cam", episode.SheetName(0), false, []byte{0xff, 0xd8, 0}, []byte(`{}`)); err != nil {
		t.Errorf("a late file amid other sinks' files: %v", err)
	}
}
