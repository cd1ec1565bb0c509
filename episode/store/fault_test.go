package store

import (
	"bytes"
	"errors"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/edged-robotics/edged/episode"
)

// disk is a fault hook: while full, every write of the listed ops fails
// with ENOSPC.
type disk struct {
	mu   sync.Mutex
	full map[string]bool
}

func (d *disk) set(full bool, ops ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.full == nil {
		d.full = map[string]bool{}
	}
	for _, op := range ops {
		d.full[op] = full
	}
}

func (d *disk) fault(op, _ string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.full[op] {
		return syscall.ENOSPC
	}
	return nil
}

var allOps = []string{OpMkdir, OpManifest, OpAppend, OpSync}

type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }
func (l *logBuf) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

func faultyStore(t *testing.T) (*Store, *disk, *logBuf) {
	d := &disk{}
	lb := &logBuf{}
	s := open(t, t.TempDir(), Options{Fault: d.fault, Logger: slog.New(slog.NewTextHandler(lb, nil)), MinFreeBytes: -1})
	return s, d, lb
}

// A failed Begin leaves no directory behind, however often it is tried,
// and logs once.
func TestBeginOnFullDiskLeaksNothing(t *testing.T) {
	for _, op := range []string{OpMkdir, OpManifest} {
		t.Run(op, func(t *testing.T) {
			s, d, lb := faultyStore(t)
			d.set(true, op)
			for i := range 200 {
				if _, err := s.Begin(Begin{Robot: "r", Start: at(float64(i))}); err == nil {
					t.Fatal("Begin succeeded on a full disk")
				}
			}
			if ents, _ := os.ReadDir(s.Dir()); len(ents) != 1 { // .lock
				t.Fatalf("store holds %d entries after failed Begins", len(ents))
			}
			if s.Health() == nil || s.Stats().Errors[op] != 200 {
				t.Fatalf("health %v stats %+v", s.Health(), s.Stats())
			}
			if n := strings.Count(lb.String(), "write failed"); n != 1 {
				t.Fatalf("%d failure log lines, want 1:\n%s", n, lb)
			}
			d.set(false, op)
			w, err := s.Begin(Begin{Robot: "r", Start: at(500)})
			if err != nil || s.Health() != nil || !strings.Contains(lb.String(), "works again") {
				t.Fatalf("after space returned: %v, health %v", err, s.Health())
			}
			must(t, w.Close(at(501), episode.Completed, episode.EndIdle))
		})
	}
}

// Closed segments of the open episode are kept in memory while the disk
// is full and written, in order, when space returns; so is the close.
func TestSegmentsWaitForSpace(t *testing.T) {
	s, d, lb := faultyStore(t)
	w, err := s.Begin(Begin{Robot: "r", Start: at(0)})
	must(t, err)
	must(t, w.Segment(seg("a", 0, 1)))
	d.set(true, allOps...)
	for i, l := range []string{"b", "c", "d"} {
		if err := w.Segment(seg(l, float64(i+1), float64(i+2))); !errors.Is(err, ErrPending) {
			t.Fatalf("Segment on a full disk: %v", err)
		}
	}
	if err := w.Transition(episode.Transition{Stamp: at(3), Source: "/task_state"}); err == nil {
		t.Fatal("transition written on a full disk")
	}
	if err := w.Close(at(4), episode.Completed, episode.EndIdle); err == nil {
		t.Fatal("Close succeeded on a full disk")
	}
	if _, err := s.Begin(Begin{Robot: "r", Start: at(5)}); err == nil {
		t.Fatal("a second episode began while the first could not close")
	}
	if w.Pending() != 3 || w.NextIndex() != 4 || s.Health() == nil {
		t.Fatalf("pending %d next %d health %v", w.Pending(), w.NextIndex(), s.Health())
	}
	if n := strings.Count(lb.String(), "write failed"); n > len(allOps) {
		t.Fatalf("%d failure log lines for %d kinds:\n%s", n, len(allOps), lb)
	}
	d.set(false, allOps...)
	must(t, w.Close(at(4), episode.Completed, episode.EndIdle))
	if s.Health() != nil {
		t.Fatalf("health %v after space returned", s.Health())
	}
	e, err := episode.Load(s.Dir(), w.ID())
	must(t, err)
	if got := timelineOf(e); got != "a[0-1]completed b[1-2]completed c[2-3]completed d[3-4]completed" || len(e.Problems) > 0 || !e.Manifest.Closed {
		t.Fatalf("episode %s %v %+v", got, e.Problems, e.Manifest)
	}
	for i, sg := range e.Segments {
		if sg.Index != i {
			t.Fatalf("segment %d has index %d", i, sg.Index)
		}
	}
}

// A write cut short by a full disk does not leave a torn record in the
// middle of the file.
func TestPartialWriteIsCutBack(t *testing.T) {
	s, d, _ := faultyStore(t)
	w, err := s.Begin(Begin{Robot: "r", Start: at(0)})
	must(t, err)
	must(t, w.Segment(seg("a", 0, 1)))
	d.set(true, OpSync) // the record reaches the file, its fsync fails
	if err := w.Segment(seg("b", 1, 2)); !errors.Is(err, ErrPending) {
		t.Fatal(err)
	}
	d.set(false, OpSync)
	written, err := w.Retry()
	if err != nil || len(written) != 1 {
		t.Fatalf("Retry = %v, %v", written, err)
	}
	must(t, w.Close(at(2), episode.Completed, episode.EndIdle))
	e, err := episode.Load(s.Dir(), w.ID())
	must(t, err)
	if got := timelineOf(e); got != "a[0-1]completed b[1-2]completed" || len(e.Problems) > 0 {
		t.Fatalf("episode %s %v", got, e.Problems)
	}
}

// Retention keeps a free-space floor: closed episodes go (uploaded
// first) before an episode begins on a nearly full disk.
func TestFreeSpaceFloor(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	free := int64(1 << 30)
	fs := func(string) (int64, error) { mu.Lock(); defer mu.Unlock(); return free, nil }
	s := open(t, dir, Options{MinFreeBytes: 100 << 20, FreeBytes: fs})
	var ids []string
	for i := range 3 {
		w, err := s.Begin(Begin{Robot: "r", Start: at(float64(i * 10))})
		must(t, err)
		must(t, w.Close(at(float64(i*10+1)), episode.Completed, episode.EndIdle))
		ids = append(ids, w.ID())
	}
	must(t, s.MarkUploaded(ids[1]))
	// Each deletion frees 40 MiB; 30 MiB free needs two of them.
	mu.Lock()
	free = 30 << 20
	mu.Unlock()
	s.opts.FreeBytes = func(string) (int64, error) {
		mu.Lock()
		defer mu.Unlock()
		return free + int64(3-countEpisodes(t, dir))*40<<20, nil
	}
	w, err := s.Begin(Begin{Robot: "r", Start: at(100)})
	must(t, err)
	ms, _ := episode.List(dir)
	var left []string
	for _, m := range ms {
		left = append(left, m.ID)
	}
	if len(left) != 2 || left[0] != ids[2] || left[1] != w.ID() || s.Stats().Deleted != 2 {
		t.Fatalf("left %v (uploaded %s went first?), stats %+v", left, ids[1], s.Stats())
	}
	// While an episode is open (the fsm calls KeepFloor every second):
	// the closed one goes, the open one stays.
	mu.Lock()
	free = -30 << 20 // 10 MiB free with two episodes
	mu.Unlock()
	s.KeepFloor()
	if ms, _ := episode.List(dir); len(ms) != 1 || ms[0].ID != w.ID() {
		t.Fatalf("after KeepFloor: %+v", ms)
	}
}

func countEpisodes(t *testing.T, dir string) int {
	ms, err := episode.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(ms)
}
