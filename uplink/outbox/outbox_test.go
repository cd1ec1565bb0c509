package outbox

import (
	"bytes"
	"context"
	"fmt"
	"github.com/edged-robotics/edged/internal/poll"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func open(t testing.TB, dir string, max int64) *Outbox {
	t.Helper()
	o, err := Open(Options{Dir: dir, MaxBytes: max, SegmentBytes: 4096, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func msg(p Priority, s string) Msg { return Msg{Priority: p, Data: []byte(s)} }

func drain(t *testing.T, o *Outbox, ack bool) []string {
	t.Helper()
	var got []string
	for {
		it, ok, err := o.TryNext()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return got
		}
		got = append(got, string(it.Data))
		if ack {
			o.Ack(it.Seq)
		}
	}
}

func TestPriorityOrderAndReopen(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir, 1<<20)
	for i := range 3 {
		if _, err := o.Put(msg(PrioritySheet, fmt.Sprint("sheet", i)), msg(PrioritySnippet, fmt.Sprint("snip", i))); err != nil {
			t.Fatal(err)
		}
		if _, err := o.Put(msg(PriorityControl, fmt.Sprint("seg", i))); err != nil {
			t.Fatal(err)
		}
	}
	it, _, _ := o.TryNext() // seg0 in flight, never acked
	if string(it.Data) != "seg0" {
		t.Fatalf("first = %q", it.Data)
	}
	got := drain(t, o, true)
	want := []string{"seg1", "seg2", "snip0", "snip1", "snip2", "sheet0", "sheet1", "sheet2"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("order %v, want %v", got, want)
	}
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	o = open(t, dir, 1<<20)
	defer o.Close()
	if got := drain(t, o, false); fmt.Sprint(got) != "[seg0]" {
		t.Fatalf("after reopen: %v, want the unacknowledged seg0 only", got)
	}
}

func TestEvictsOldestSheetsNeverControl(t *testing.T) {
	o := open(t, t.TempDir(), 10*(headerLen+bodyPrefix+100))
	defer o.Close()
	body := func(c byte) []byte { return bytes.Repeat([]byte{c}, 100) }
	for i := range 6 {
		if _, err := o.Put(Msg{Priority: PrioritySheet, Data: body(byte('a' + i))}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 8 {
		if _, err := o.Put(Msg{Priority: PriorityControl, Data: body(byte('0' + i))}); err != nil {
			t.Fatal(err)
		}
	}
	s := o.Stats()
	if s.Evicted != 4 || s.OverBound != 0 {
		t.Fatalf("evicted %d over %d, want 4 and 0", s.Evicted, s.OverBound)
	}
	// Full of control messages: sheets are refused, control still taken.
	for range 2 {
		o.Put(Msg{Priority: PriorityControl, Data: body('x')})
	}
	if _, err := o.Put(Msg{Priority: PrioritySheet, Data: body('z')}); err != ErrFull {
		t.Fatalf("sheet into a full outbox: %v, want ErrFull", err)
	}
	if _, err := o.Put(Msg{Priority: PriorityControl, Data: body('y')}); err != nil {
		t.Fatal(err)
	}
	s = o.Stats()
	if s.Evicted != 6 || s.Rejected != 1 || s.OverBound != 1 {
		t.Fatalf("stats %+v", s)
	}
	got := drain(t, o, true)
	if len(got) != 11 || got[0][0] != '0' || got[10][0] != 'y' {
		t.Fatalf("kept %d messages: first %q", len(got), got[0][:1])
	}
}

func TestTornTailAndCorruptRecord(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir, 1<<20)
	for i := range 5 {
		o.Put(msg(PriorityControl, fmt.Sprint("m", i)))
	}
	o.Close()
	files, _ := filepath.Glob(filepath.Join(dir, filePrefix+"*.log"))
	name := files[len(files)-1]
	b, _ := os.ReadFile(name)
	rec := len(b) / 5
	b[rec*2+headerLen+bodyPrefix] ^= 0xff // corrupt m2's data
	b = append(b, appendRecord(nil, recPut, 0, 99, []byte("torn"))[:15]...)
	os.WriteFile(name, b, 0o644)

	o = open(t, dir, 1<<20)
	defer o.Close()
	got := drain(t, o, true)
	if fmt.Sprint(got) != "[m0 m1 m3 m4]" {
		t.Fatalf("got %v", got)
	}
	s := o.Stats()
	if s.Quarantined != 1 || s.TornBytes != 15 || len(o.Recovered()) != 2 {
		t.Fatalf("stats %+v, recovered %q", s, o.Recovered())
	}
	q, _ := filepath.Glob(filepath.Join(dir, "quarantine", "*"))
	if len(q) != 1 {
		t.Fatalf("quarantine holds %v", q)
	}
}

func TestCompactionKeepsLiveMessages(t *testing.T) {
	dir := t.TempDir()
	o := open(t, dir, 1<<20)
	big := bytes.Repeat([]byte("x"), 300)
	var keep []uint64
	for i := range 60 {
		seqs, err := o.Put(Msg{Priority: PriorityControl, Data: append([]byte(fmt.Sprintf("%03d", i)), big...)})
		if err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			keep = append(keep, seqs[0])
		}
	}
	for {
		it, ok, _ := o.TryNext()
		if !ok {
			break
		}
		if (it.Data[2]-'0')%10 != 0 || it.Data[1] == 'x' {
			o.Ack(it.Seq)
		}
	}
	poll.Until(t, 10*time.Second, "compaction", func() bool {
		s := o.Stats()
		return s.Compactions > 0 && s.Files <= 3
	})
	if s := o.Stats(); s.Pending != len(keep) {
		t.Fatalf("stats %+v", s)
	}
	o.Close()
	o = open(t, dir, 1<<20)
	defer o.Close()
	for i := range keep {
		o.Release(keep[i])
	}
	var got []string
	for _, d := range drain(t, o, true) {
		got = append(got, d[:3])
	}
	if fmt.Sprint(got) != "[000 010 020 030 040 050]" {
		t.Fatalf("after compaction and reopen: %v", got)
	}
}

func TestNextWaitsForPut(t *testing.T) {
	o := open(t, t.TempDir(), 1<<20)
	defer o.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		o.Put(msg(PriorityControl, "late"))
	}()
	it, err := o.Next(ctx)
	if err != nil || string(it.Data) != "late" {
		t.Fatalf("Next = %q, %v", it.Data, err)
	}
	wg.Wait()
}

// BenchmarkPut: durable puts of 64 KiB messages from 8 goroutines, so
// that group commit batches their fsyncs; the reference is one fsync
// per message (BenchmarkPutSerial).
func BenchmarkPut(b *testing.B) {
	o, err := Open(Options{Dir: b.TempDir(), MaxBytes: 1 << 40, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	data := bytes.Repeat([]byte("s"), 64<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			seqs, err := o.Put(Msg{Priority: PrioritySheet, Data: data})
			if err != nil {
				b.Error(err)
				return
			}
			o.Ack(seqs[0])
		}
	})
	s := o.Stats()
	b.ReportMetric(float64(s.Put)/float64(max(s.Syncs, 1)), "msgs/fsync")
}

func BenchmarkPutSerial(b *testing.B) {
	o, err := Open(Options{Dir: b.TempDir(), MaxBytes: 1 << 40, Logger: quiet})
	if err != nil {
		b.Fatal(err)
	}
	defer o.Close()
	data := bytes.Repeat([]byte("s"), 64<<10)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		seqs, err := o.Put(Msg{Priority: PrioritySheet, Data: data})
		if err != nil {
			b.Fatal(err)
		}
		o.Ack(seqs[0])
	}
}
