package outbox

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/edged-robotics/edged/internal/poll"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var errInjected = errors.New("injected fsync failure")

// TestFailedPutIsNeverHandedOut: a Put whose fsync fails returns the
// error and its message is never handed to the publisher, neither now
// nor after a reopen (it was not durable, the caller was told so).
func TestFailedPutIsNeverHandedOut(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir, 1<<20)
	o.fsync = func(*os.File) error { return errInjected }
	if _, err := o.Put(msg(PriorityControl, "not durable")); !errors.Is(err, errInjected) {
		t.Fatalf("Put = %v, want the fsync error", err)
	}
	if it, ok, err := o.TryNext(); ok || err != nil {
		t.Fatalf("TryNext = %q, %v, %v: a failed Put was handed out", it.Data, ok, err)
	}
	if s := o.Stats(); s.Put != 0 || s.Pending != 0 {
		t.Fatalf("stats %+v: a failed Put is neither counted nor pending", s)
	}
	o.fsync = (*os.File).Sync
	if _, err := o.Put(msg(PriorityControl, "durable")); err != nil {
		t.Fatal(err)
	}
	o.Close()
	o = open(t, dir, 1<<20)
	defer o.Close()
	if got := drain(t, o, true); fmt.Sprint(got) != "[durable]" {
		t.Fatalf("after reopen: %v, want only the durable message", got)
	}
}

// sealedSeqs waits until the first file is sealed and returns its
// sequences and name.
func sealedSeqs(t *testing.T, o *Outbox) ([]uint64, map[uint64]int64, string) {
	t.Helper()
	poll.Until(t, 10*time.Second, "rotation", func() bool { return o.Stats().Files >= 2 })
	o.mu.Lock()
	defer o.mu.Unlock()
	f := o.files[0]
	offs := map[uint64]int64{}
	var seqs []uint64
	for seq, e := range f.entries {
		seqs = append(seqs, seq)
		offs[seq] = e.off
	}
	return seqs, offs, f.f.Name()
}

func putMany(t *testing.T, o *Outbox, n, size int) {
	t.Helper()
	for i := range n {
		if _, err := o.Put(Msg{Priority: PriorityControl, Data: append([]byte(fmt.Sprintf("%03d", i)), bytes.Repeat([]byte("x"), size)...)}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCorruptEntriesQuarantinedOnce: compacting a file with several
// unreadable records quarantines and counts each exactly once (it used
// to re-enter compaction from its own removals and count them again).
func TestCorruptEntriesQuarantinedOnce(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir, 1<<20)
	defer o.Close()
	putMany(t, o, 30, 300)
	seqs, offs, name := sealedSeqs(t, o)
	if len(seqs) < 6 {
		t.Fatalf("first file holds %d records, want more", len(seqs))
	}
	fh, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	const bad = 3
	corrupt := map[uint64]bool{}
	for _, seq := range seqs[:bad] {
		corrupt[seq] = true
		if _, err := fh.WriteAt([]byte{0xff, 0xfe}, offs[seq]+headerLen+bodyPrefix); err != nil {
			t.Fatal(err)
		}
	}
	fh.Close()
	for _, seq := range seqs {
		if !corrupt[seq] {
			o.Ack(seq)
		}
	}
	poll.Until(t, 10*time.Second, "compaction of the first file", func() bool {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.files[0].f.Name() != name
	})
	if s := o.Stats(); s.Quarantined != bad {
		t.Fatalf("quarantined %d, want %d (each corrupt record once)", s.Quarantined, bad)
	}
	q, _ := filepath.Glob(filepath.Join(dir, "quarantine", "*"))
	if len(q) != bad {
		t.Fatalf("quarantine holds %d files, want %d", len(q), bad)
	}
	if got := drain(t, o, true); len(got) != 30-len(seqs) {
		t.Fatalf("%d messages left, want %d", len(got), 30-len(seqs))
	}
}

// TestCompactionDoesNotHoldTheLock: while compaction reads a file, Put,
// TryNext, Ack and Stats go on (they used to wait for the whole read,
// rewrite and fsync, which ran under the one mutex).
func TestCompactionDoesNotHoldTheLock(t *testing.T) {
	o := open(t, t.TempDir(), 1<<20)
	defer o.Close()
	entered, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	o.mu.Lock()
	o.compactRead = func() {
		once.Do(func() { close(entered); <-release })
	}
	o.mu.Unlock()
	released := false
	free := func() {
		if !released {
			released = true
			close(release)
		}
	}
	defer free() // before Close: a blocked compaction must not block it
	putMany(t, o, 30, 300)
	seqs, _, _ := sealedSeqs(t, o)
	for _, seq := range seqs[1:] {
		o.Ack(seq) // the first file becomes mostly garbage
	}
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("compaction did not start")
	}
	done := make(chan error, 1)
	go func() {
		if _, err := o.Put(msg(PriorityControl, "during")); err != nil {
			done <- err
			return
		}
		it, ok, err := o.TryNext()
		if err == nil && ok {
			o.Ack(it.Seq)
		}
		_ = o.Stats()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Put, TryNext, Ack and Stats blocked behind compaction")
	}
	free()
	poll.Until(t, 10*time.Second, "compaction", func() bool { return o.Stats().Compactions > 0 })
}

// TestAckedAndDroppedCountedApart: a message given up (Drop) is not
// counted as acknowledged.
func TestAckedAndDroppedCountedApart(t *testing.T) {
	o := open(t, t.TempDir(), 1<<20)
	defer o.Close()
	seqs, err := o.Put(msg(PriorityControl, "a"), msg(PriorityControl, "b"), msg(PriorityControl, "c"))
	if err != nil {
		t.Fatal(err)
	}
	o.Ack(seqs[0])
	o.Drop(seqs[1])
	o.Drop(seqs[1]) // twice: counted once
	if s := o.Stats(); s.Acked != 1 || s.Dropped != 1 || s.Pending != 1 {
		t.Fatalf("acked %d dropped %d pending %d, want 1, 1, 1", s.Acked, s.Dropped, s.Pending)
	}
}

// TestInjectedClock: ages come from Options.Now, so a replay with its
// own clock sees deterministic figures.
func TestInjectedClock(t *testing.T) {
	var mu sync.Mutex
	now := time.Unix(1700000000, 0)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	o, err := Open(Options{Dir: t.TempDir(), Logger: quiet, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	if _, err := o.Put(msg(PriorityControl, "a")); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	now = now.Add(90 * time.Second)
	mu.Unlock()
	if age := o.Stats().OldestAge; age != 90*time.Second {
		t.Fatalf("OldestAge = %v, want 90s on the injected clock", age)
	}
}
