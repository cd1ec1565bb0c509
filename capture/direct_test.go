package capture

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros"
)

// directNode calls SubscribeOptions.Handle itself, as FromROS1 does: its
// subscriptions are Direct and their Messages() never deliver.
type directNode struct {
	mu      sync.Mutex
	handles map[string]func(*ros.Message)
}

type directSub struct{ fakeSub }

func (*directSub) HandlesDirectly() bool { return true }

func (n *directNode) Subscribe(_ context.Context, o SubscribeOptions) (Subscription, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.handles == nil {
		n.handles = map[string]func(*ros.Message){}
	}
	n.handles[o.Topic] = o.Handle
	return &directSub{fakeSub{}}, nil // a nil channel: capture must not read it
}

func (n *directNode) handle(topic string) func(*ros.Message) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.handles[topic]
}

// A direct node's readers (several publishers at once) hand every
// message straight to the sinks: capture starts no goroutine for the
// topic, converts each message once, releases each exactly once.
func TestDirectNodeHandsEveryMessageToTheSink(t *testing.T) {
	node := &directNode{}
	rec := &recorder{}
	c, err := New(Config{Cameras: []string{"/cam"}, Joints: []string{"/j"}, SimTime: SimTimeOff}, node,
		Sinks{Frames: rec, Joints: rec}, Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	var rel releases
	c.onRelease = rel.hook
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	const publishers, each = 4, 50
	var sent []*ros.Message
	for range publishers * each {
		sent = append(sent, message("/cam", pubImage, imageBody(wallNow, 4, 2, "rgb8"), time.Now()),
			message("/j", pubJoints, jointBody(wallNow), time.Now()))
	}
	cam, joints := node.handle("/cam"), node.handle("/j")
	if cam == nil || joints == nil {
		t.Fatal("capture gave the node no Handle")
	}
	var readers sync.WaitGroup
	for p := range publishers { // one reader per publisher, as ros's
		readers.Add(1)
		go func() {
			defer readers.Done()
			for _, m := range sent[2*p*each : 2*(p+1)*each] {
				if m.Topic == "/cam" {
					cam(m)
				} else {
					joints(m)
				}
			}
		}()
	}
	readers.Wait()
	if got := rec.count(); got != len(sent) {
		t.Errorf("sinks got %d events, want %d", got, len(sent))
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	rel.check(t, sent)
	for _, st := range c.Stats() {
		if st.Messages != publishers*each || st.Events != publishers*each || st.DecodeErrors != 0 {
			t.Errorf("%s: %+v", st.Topic, st)
		}
	}
}
