package outbox

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/poll"
)

func gmsg(p Priority, group, name, data string) Msg {
	return Msg{Priority: p, Data: []byte(data), Group: group, Name: name}
}

// A group's messages stay after the broker's Ack until Done; Resend
// hands them out again unchanged, and a reopen keeps them held, not
// queued (they are not sent again by themselves).
func TestGroupHeldUntilDone(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir, 1<<20)
	if _, err := o.Put(gmsg(PriorityControl, "ep1", "segment/0", "seg0"), gmsg(PrioritySheet, "ep1", "sheet/cam/1", "sheet1"),
		msg(PriorityControl, "loose")); err != nil {
		t.Fatal(err)
	}
	if got := drain(t, o, true); fmt.Sprint(got) != "[seg0 loose sheet1]" {
		t.Fatalf("sent %v", got)
	}
	st := o.Stats()
	if st.Pending != 0 || st.Held != 2 || st.Acked != 3 {
		t.Fatalf("after the acks: pending %d held %d acked %d, want 0 2 3", st.Pending, st.Held, st.Acked)
	}
	if !o.Holds("ep1", "sheet/cam/1") || o.Holds("ep1", "sheet/cam/2") {
		t.Fatal("Holds wrong")
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}

	o = open(t, dir, 1<<20)
	if got := drain(t, o, false); len(got) != 0 {
		t.Fatalf("a reopen sent %v again; held messages wait for Resend", got)
	}
	if st := o.Stats(); st.Held != 2 || st.Pending != 0 {
		t.Fatalf("after reopen: held %d pending %d, want 2 0", st.Held, st.Pending)
	}
	if g := o.Groups(); len(g) != 1 || g[0].Group != "ep1" || g[0].Held != 2 || g[0].Queued != 0 || g[0].Sent.IsZero() {
		t.Fatalf("groups %+v", g)
	}
	r := o.Resend("ep1", []string{"sheet/cam/1", "sheet/cam/9"})
	if fmt.Sprint(r.Queued, r.Missing) != "[sheet/cam/1] [sheet/cam/9]" {
		t.Fatalf("resend %+v", r)
	}
	if r := o.Resend("ep1", []string{"sheet/cam/1"}); fmt.Sprint(r.Waiting) != "[sheet/cam/1]" {
		t.Fatalf("a second resend before the first went out: %+v, want it waiting", r)
	}
	if got := drain(t, o, true); fmt.Sprint(got) != "[sheet1]" {
		t.Fatalf("resent %v", got)
	}
	if n := o.Done("ep1"); n != 2 {
		t.Fatalf("Done forgot %d, want 2", n)
	}
	if st := o.Stats(); st.Held != 0 || st.Done != 2 || st.Resent != 1 || len(o.Groups()) != 0 {
		t.Fatalf("after Done: %+v groups %v", st, o.Groups())
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	o = open(t, dir, 1<<20)
	defer o.Close()
	if st := o.Stats(); st.Held != 0 || st.Pending != 0 {
		t.Fatalf("Done did not last: held %d pending %d", st.Held, st.Pending)
	}
}

// Done forgets a group's messages not sent yet too (the receiver holds
// the episode: they are duplicates).
func TestDoneForgetsQueued(t *testing.T) {
	o := open(t, t.TempDir(), 1<<20)
	defer o.Close()
	if _, err := o.Put(gmsg(PrioritySheet, "ep", "a", "a"), gmsg(PrioritySheet, "ep", "b", "b"), gmsg(PrioritySheet, "other", "a", "x")); err != nil {
		t.Fatal(err)
	}
	if n := o.Done("ep"); n != 2 {
		t.Fatalf("Done = %d", n)
	}
	if got := drain(t, o, true); fmt.Sprint(got) != "[x]" {
		t.Fatalf("sent %v", got)
	}
}

// Compaction copies held messages as held: after a reopen they are
// neither lost nor sent again.
func TestCompactionKeepsHeld(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir, 1<<20) // 4 KiB files: many of them
	pad := string(bytes.Repeat([]byte("x"), 200))
	for i := range 60 {
		if _, err := o.Put(gmsg(PrioritySnippet, "ep", fmt.Sprint("snippet/c/", i), fmt.Sprint(i, pad)), msg(PrioritySnippet, pad+pad+pad)); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, o, true)
	poll.Until(t, 10*time.Second, "compaction", func() bool { return o.Stats().Compactions > 0 })
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	o = open(t, dir, 1<<20)
	defer o.Close()
	if got := drain(t, o, false); len(got) != 0 {
		t.Fatalf("%d messages sent again after compaction and reopen", len(got))
	}
	if st := o.Stats(); st.Held != 60 {
		t.Fatalf("held %d after compaction and reopen, want 60", st.Held)
	}
	r := o.Resend("ep", []string{"snippet/c/7"})
	if got := drain(t, o, false); len(r.Queued) != 1 || len(got) != 1 || got[0] != "7"+pad {
		t.Fatalf("resend after compaction: %+v %q", r, got)
	}
}

// Held messages make room first, sheets before snippets before control
// messages, oldest first, and before any queued sheet; each is counted.
func TestHeldEvictedFirst(t *testing.T) {
	rec := int64(headerLen + bodyPrefix + 100 + 2 + len("ep") + len("n00"))
	o := open(t, t.TempDir(), 6*rec)
	defer o.Close()
	body := func(c byte) string { return string(bytes.Repeat([]byte{c}, 100)) }
	for i, p := range []Priority{PriorityControl, PrioritySheet, PrioritySnippet, PrioritySheet} {
		if _, err := o.Put(gmsg(p, "ep", fmt.Sprintf("n%02d", i), body(byte('a'+i)))); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, o, true) // all four held
	if _, err := o.Put(gmsg(PrioritySheet, "ep", "n10", body('q')), gmsg(PrioritySheet, "ep", "n11", body('r'))); err != nil {
		t.Fatal(err) // fits: 6 records
	}
	var evicted []string
	for _, want := range []string{"n01", "n03", "n02", "n00"} {
		if _, err := o.Put(gmsg(PriorityControl, "eq", "n99", body('z'))); err != nil {
			t.Fatal(err)
		}
		if o.Holds("ep", want) {
			t.Fatalf("held %s not evicted in its turn (evicted so far %v)", want, evicted)
		}
		evicted = append(evicted, want)
	}
	st := o.Stats()
	if st.EvictedHeld != 4 || st.Evicted != 4 || st.OverBound != 0 || st.Pending != 6 {
		t.Fatalf("stats %+v", st)
	}
	if got := drain(t, o, false); !slices.Contains(got, body('q')) {
		t.Fatalf("a queued sheet went before the held ones: %d left", len(got))
	}
}

func TestGroupNamesBounded(t *testing.T) {
	o := open(t, t.TempDir(), 1<<20)
	defer o.Close()
	long := string(bytes.Repeat([]byte("g"), 256))
	for _, m := range []Msg{gmsg(PriorityControl, long, "n", "x"), gmsg(PriorityControl, "g", long, "x"), gmsg(PriorityControl, "", "n", "x")} {
		if _, err := o.Put(m); err == nil {
			t.Errorf("group %d bytes name %d bytes accepted", len(m.Group), len(m.Name))
		}
	}
}

// A group's Done, and the acknowledgements that hold its messages, are
// tombstones in later files than the messages: when those later files
// drain and are deleted, the tombstones must not go with them, or a
// reopen brings a Done group back (sent again) and held messages back
// as queued.
func TestTombstonesOutliveTheirFile(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir, 1<<20) // 4 KiB files
	pad := string(bytes.Repeat([]byte("p"), 900))
	for i := range 3 {
		if _, err := o.Put(gmsg(PrioritySnippet, "ep1", fmt.Sprint("snippet/c/", i), pad), gmsg(PrioritySnippet, "ep2", fmt.Sprint("snippet/c/", i), pad)); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, o, true) // all six held; their acks in the files after
	poll.Until(t, 10*time.Second, "rotation", func() bool { return o.Stats().Files >= 2 })
	o.Done("ep1")
	for i := range 40 { // later files fill with loose messages, drain and are deleted
		if _, err := o.Put(msg(PriorityControl, fmt.Sprint(i, pad))); err != nil {
			t.Fatal(err)
		}
		drain(t, o, true)
	}
	poll.Until(t, 10*time.Second, "drained files deleted", func() bool { return o.Stats().Files <= 4 })
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	o = open(t, dir, 1<<20)
	defer o.Close()
	g := o.Groups()
	if len(g) != 1 || g[0].Group != "ep2" || g[0].Held != 3 || g[0].Queued != 0 {
		t.Fatalf("after reopen: groups %+v, want ep2 alone with 3 held (ep1 was Done)", g)
	}
	if got := drain(t, o, false); len(got) != 0 {
		t.Fatalf("%d messages would be sent again: %.20q", len(got), got)
	}
}

// A sheet that would not fit even with every evictable message gone is
// refused before anything is evicted for it: held messages stay.
func TestRefusedSheetEvictsNothing(t *testing.T) {
	o := open(t, t.TempDir(), 10_000)
	defer o.Close()
	for i := range 5 {
		if _, err := o.Put(gmsg(PriorityControl, "ep", fmt.Sprint("segment/", i), string(bytes.Repeat([]byte("c"), 1000)))); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, o, true) // 5 held
	if _, err := o.Put(msg(PriorityControl, string(bytes.Repeat([]byte("w"), 4000)))); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Put(msg(PrioritySheet, string(bytes.Repeat([]byte("s"), 6000)))); err != ErrFull {
		t.Fatalf("a sheet larger than what can be freed: %v, want ErrFull", err)
	}
	if st := o.Stats(); st.EvictedHeld != 0 || st.Held != 5 {
		t.Fatalf("held messages evicted for a sheet that was refused anyway: %+v", st)
	}
}

// Resending and holding again does not grow the held list.
func TestHeldListBounded(t *testing.T) {
	o := open(t, t.TempDir(), 1<<20)
	defer o.Close()
	for i := range 10 {
		if _, err := o.Put(gmsg(PrioritySheet, "ep", fmt.Sprint("sheet/c/", i), "x")); err != nil {
			t.Fatal(err)
		}
	}
	drain(t, o, true)
	names := make([]string, 10)
	for i := range names {
		names[i] = fmt.Sprint("sheet/c/", i)
	}
	for range 1000 {
		o.Resend("ep", names)
		drain(t, o, true)
	}
	o.mu.Lock()
	n := len(o.held[PrioritySheet])
	o.mu.Unlock()
	if n > 200 {
		t.Fatalf("held list of %d entries for 10 held messages", n)
	}
}

// Files of an edged before groups (seg-*.log) are read and drained;
// new records go to obx-*.log only, which such an edged does not read
// (it would cut the records it does not know off as a torn tail).
func TestOlderFilesReadNewerApart(t *testing.T) {
	dir := t.TempDir()
	old := appendRecord(nil, recPut, PriorityControl, 1, []byte("from before"))
	if err := os.WriteFile(filepath.Join(dir, oldFilePrefix+"0000000000000000.log"), old, 0o644); err != nil {
		t.Fatal(err)
	}
	o := open(t, dir, 1<<20)
	if _, err := o.Put(gmsg(PriorityControl, "ep", "segment/0", "grouped")); err != nil {
		t.Fatal(err)
	}
	if got := drain(t, o, true); fmt.Sprint(got) != "[from before grouped]" {
		t.Fatalf("sent %v", got)
	}
	poll.Until(t, 10*time.Second, "the older file drained and deleted", func() bool {
		n, _ := filepath.Glob(filepath.Join(dir, oldFilePrefix+"*.log"))
		return len(n) == 0
	})
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	if n, _ := filepath.Glob(filepath.Join(dir, filePrefix+"*.log")); len(n) == 0 {
		t.Fatal("no obx-*.log file written")
	}
}
