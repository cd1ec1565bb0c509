package rostool

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros2/dds"
)

// Echo prints one topic's messages.
type Echo struct {
	Topic   string
	Printer *Printer
	// Count: stop after Count messages; <= 0: until the context ends.
	Count int
	// MaxMessageBytes refuses larger messages (the connection is
	// closed and counted, and a note says so); the queue holds two.
	MaxMessageBytes int
	// Notes gets what the user should know (stderr).
	Notes io.Writer
	// Discovery is how long ROS2 waits for a publisher before a note.
	Discovery time.Duration
}

// ROS1 subscribes to the topic through n (any type) and prints its
// messages until Count or ctx ends; an unreachable master is an error.
func (e Echo) ROS1(ctx context.Context, n *ros.Node) error {
	if err := CheckMaster(ctx, n); err != nil {
		return err
	}
	sub, err := n.Subscribe(ctx, ros.SubscribeOptions{Topic: e.Topic, QueueSize: 64, MaxMessageBytes: e.MaxMessageBytes, QueueBytes: 2 * e.MaxMessageBytes})
	if err != nil {
		return err
	}
	defer sub.Close()
	notePublishers(ctx, n, sub.Topic(), e.Notes)
	var seenErrors uint64
	return e.print(ctx, sub.Messages(), func() {
		if n := sub.Stats().Errors; n > seenErrors {
			fmt.Fprintf(e.Notes, "# %s: %d connection errors so far (a message over --max-message, %d bytes, closes the connection; see -v)\n",
				sub.Topic(), n, e.MaxMessageBytes)
			seenErrors = n
		}
	})
}

// ROS2 subscribes to the topic through p (with its publishers' QoS) and
// prints its messages until Count or ctx ends.
func (e Echo) ROS2(ctx context.Context, p *dds.Participant) error {
	sub, err := p.Subscribe(ctx, dds.SubscribeOptions{Topic: e.Topic, QueueSize: 64, MaxMessageBytes: e.MaxMessageBytes, QueueBytes: 2 * e.MaxMessageBytes})
	if err != nil {
		return err
	}
	defer sub.Close()
	e.noteROS2Publishers(ctx, p, sub.Topic())
	return e.print(ctx, sub.Messages(), nil)
}

// print prints (and releases) the messages of msgs until Count, msgs
// closes or ctx ends, calling tick (if any) every second.
func (e Echo) print(ctx context.Context, msgs <-chan *ros.Message, tick func()) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for printed := 0; e.Count <= 0 || printed < e.Count; {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if tick != nil {
				tick()
			}
		case m, ok := <-msgs:
			if !ok {
				return nil
			}
			err := e.Printer.Print(m)
			m.Release()
			if err != nil {
				return err
			}
			printed++
		}
	}
	return nil
}

// notePublishers writes a note when nobody publishes topic yet.
func notePublishers(ctx context.Context, n *ros.Node, topic string, w io.Writer) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := n.Master().GetSystemState(ctx)
	if err == nil && len(st.Publishers[topic]) == 0 {
		fmt.Fprintf(w, "# no node publishes %s yet; waiting for one (Ctrl-C to stop)\n", topic)
	}
}

// noteROS2Publishers writes a note when nobody publishes topic within
// the discovery window.
func (e Echo) noteROS2Publishers(ctx context.Context, p *dds.Participant, topic string) {
	ctx, cancel := context.WithTimeout(ctx, e.Discovery)
	defer cancel()
	_, err := p.WaitPublications(ctx, func(pubs []dds.Publication) bool {
		for _, pub := range pubs {
			if pub.Topic == topic {
				return true
			}
		}
		return false
	})
	if err != nil {
		fmt.Fprintf(e.Notes, "# no ROS 2 node publishes %s on domain %d yet; waiting for one (Ctrl-C to stop)\n", topic, p.DomainID())
	}
}
