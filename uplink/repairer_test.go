package uplink

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/edged-robotics/edged/uplink/outbox"
	"github.com/edged-robotics/edged/uplink/wire"
)

// A sink that asks again and again (gone wrong, or hostile) gets one
// answer per episode every minAnswerGap; the end is sent again on its
// backoff, MaxResends times at most.
func TestRepairerBounds(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	ob, err := outbox.Open(outbox.Options{Dir: t.TempDir(), Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	ep := "arm-20270115T080000.000Z"
	if _, err := ob.Put(outbox.Msg{Priority: outbox.PrioritySheet, Data: []byte("s"), Group: ep, Name: "sheet/c/1"},
		outbox.Msg{Priority: outbox.PriorityControl, Data: []byte("e"), Group: ep, Name: endName}); err != nil {
		t.Fatal(err)
	}
	ackAll := func() {
		for {
			it, ok, err := ob.TryNext()
			if err != nil || !ok {
				return
			}
			ob.Ack(it.Seq)
		}
	}
	ackAll()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	r := &repairer{cfg: Config{ResendAfter: time.Minute, Now: func() time.Time { return now }}, ob: ob, log: quiet,
		eps: map[string]*Awaiting{}, answered: map[string]time.Time{}}
	req := &wire.Repair{Robot: "arm", Episode: ep, Missing: []string{"sheet/c/1"}}
	for range 100 {
		r.request(req)
		ackAll()
	}
	if st := r.stats(); st.Resent != 1 || st.Throttled != 99 {
		t.Fatalf("100 requests at once: %+v, want 1 answered and 99 throttled", st)
	}
	now = now.Add(minAnswerGap)
	r.tick()
	r.request(req)
	if st := r.stats(); st.Resent != 2 {
		t.Fatalf("a request after minAnswerGap not answered: %+v", st)
	}
	ackAll()
	for range 3 * MaxResends {
		now = now.Add(2 * MaxResendInterval)
		r.tick()
		ackAll()
	}
	if st := r.stats(); st.EndResends != MaxResends {
		t.Fatalf("end sent again %d times, want MaxResends (%d)", st.EndResends, MaxResends)
	}
}
