//go:build cgo && !purego

package dds

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/poll"
)

func newTestParticipant(t *testing.T, domain int) *Participant {
	t.Helper()
	p, err := NewParticipant(Config{DomainID: domain, CycloneConfig: LoopbackConfig})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// cdrString is a std_msgs/String sample: CDR_LE header, length, bytes, NUL.
func cdrString(s string) []byte {
	b := []byte{0, 1, 0, 0}
	n := uint32(len(s) + 1)
	b = append(b, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	return append(append(b, s...), 0)
}

func TestGoWriterToSubscription(t *testing.T) {
	domain := testDomain()
	pub, sub := newTestParticipant(t, domain), newTestParticipant(t, domain)
	w, err := pub.NewWriter("/chatter", "std_msgs/msg/String", ProfileDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	s, err := sub.Subscribe(context.Background(), SubscribeOptions{Topic: "/chatter"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	poll.Until(t, 10*time.Second, "the writer to match the reader", func() bool { return w.Matched() > 0 })
	if q, ok := s.QoS(); !ok || q.Reliability != Reliable || q.Durability != Volatile {
		t.Errorf("QoS = %v, %v; want the publisher's reliable/volatile", q, ok)
	}
	want := cdrString("hello")
	if err := w.Write(want); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-s.Messages():
		if !bytes.Equal(m.Data, want) || m.Publisher.Type != "std_msgs/msg/String" || m.Topic != "/chatter" {
			t.Errorf("got %q type %q topic %q", m.Data, m.Publisher.Type, m.Topic)
		}
		m.Release()
	case <-time.After(10 * time.Second):
		t.Fatal("no sample")
	}
	if st := s.Stats(); st.Messages != 1 || st.Publishers != 1 || st.HeldBytes != 0 {
		t.Errorf("stats %+v", st)
	}
	pubs := sub.Publications()
	if len(pubs) != 1 || pubs[0].Topic != "/chatter" || pubs[0].Type != "std_msgs/msg/String" || pubs[0].DDSTopic != "rt/chatter" {
		t.Errorf("publications %+v", pubs)
	}
}

// One goroutine of a participant waits in Cyclone, however many topics it
// reads: a goroutine blocked in a C call per topic (and one for the
// graph) kept the Go runtime taking their Ps back and its monitor thread
// polling every 20 us (pump_cgo.go). Samples of every topic still arrive.
func TestOneGoroutineWaitsInCyclone(t *testing.T) {
	domain := testDomain()
	pub, sub := newTestParticipant(t, domain), newTestParticipant(t, domain)
	topics := []string{"/a", "/b", "/c"}
	var subs []*Subscription
	for _, topic := range topics {
		s, err := sub.Subscribe(context.Background(), SubscribeOptions{Topic: topic, Type: "std_msgs/msg/String", QoS: ProfileDefault})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		subs = append(subs, s)
	}
	for i, topic := range topics {
		w, err := pub.NewWriter(topic, "std_msgs/msg/String", ProfileDefault)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		poll.Until(t, 10*time.Second, "the writer to match the reader", func() bool { return w.Matched() > 0 })
		if err := w.Write(cdrString(topic)); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-subs[i].Messages():
			if !bytes.Equal(m.Data, cdrString(topic)) {
				t.Errorf("%s: got %q", topic, m.Data)
			}
			m.Release()
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: no sample", topic)
		}
	}
	// both participants: each has one goroutine in a waitset wait
	poll.Until(t, 10*time.Second, "the pumps back in their waits", func() bool { return waitingInCyclone() == 2 })
	if n := waitingInCyclone(); n != 2 {
		t.Errorf("%d goroutines wait in Cyclone for 2 participants and %d topics: want one a participant", n, len(topics))
	}
}

// waitingInCyclone counts the goroutines in a cgo call that waits on a
// Cyclone waitset.
func waitingInCyclone() int {
	buf := make([]byte, 1<<20)
	stacks := string(buf[:runtime.Stack(buf, true)])
	n := 0
	for _, g := range strings.Split(stacks, "\n\n") {
		if strings.Contains(g, "_Cfunc_dds_waitset_wait") || strings.Contains(g, "_Cfunc_edged_wait") || strings.Contains(g, "_Cfunc_edged_take_wait") {
			n++
		}
	}
	return n
}
