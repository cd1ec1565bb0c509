package daemon

import (
	"context"
	"fmt"

	"github.com/edged-robotics/edged/internal/loglimit"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros2/cdr"
	"github.com/edged-robotics/edged/ros2/dds"
)

// Under ROS 2, ~snapshot is a std_srvs/srv/Trigger service laid out on
// DDS as rmw_cyclonedds_cpp lays services out (dds.ServiceTopics): the
// requests read on rq/NODE/snapshotRequest, each answered on
// rr/NODE/snapshotReply with its request header echoed (cdr's
// RequestHeader), so the client that asked takes the answer. NODE is
// the name the ROS1 node would have (ros.node_name, __ns:=), so
// `ros2 service call /edged/snapshot std_srvs/srv/Trigger` reaches it.
// The answer is snapshot's, as under ROS1.

// snapshotQoS is rmw's default QoS of services: reliable, volatile,
// the last 10.
var snapshotQoS = dds.QoS{Reliability: dds.Reliable, Durability: dds.Volatile, Depth: 10}

// maxSnapshotRequest caps one request sample (an empty request is 21
// bytes); larger ones are refused inside Cyclone DDS and counted.
const maxSnapshotRequest = 1024

// snapshotServer is ~snapshot's request reader and reply writer.
type snapshotServer struct {
	sub    *dds.Subscription
	wr     *dds.Writer // the serving goroutine's only
	bad    loglimit.Limiter
	cancel context.CancelFunc
	done   chan struct{}
}

// serveSnapshotROS2 provides ~snapshot on the ROS 2 participant; the
// func it returns stops it (before the participant closes).
func (d *Daemon) serveSnapshotROS2(ctx context.Context) (stop func(), err error) {
	r, err := ros.NewResolver(d.rosConfig())
	if err != nil {
		return nil, err
	}
	name := r.Resolve(snapshotService.Name)
	reqTopic, replyTopic := dds.ServiceTopics(name)
	wr, err := d.ros2.NewWriterOn(replyTopic, cdr.TypeTriggerResponse, snapshotQoS)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	sub, err := d.ros2.Subscribe(ctx, dds.SubscribeOptions{Topic: name, DDSTopic: reqTopic, Type: cdr.TypeTriggerRequest,
		QoS: snapshotQoS, MaxMessageBytes: maxSnapshotRequest})
	if err != nil {
		cancel()
		wr.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &snapshotServer{sub: sub, wr: wr, cancel: cancel, done: make(chan struct{})}
	go s.serve(ctx, d)
	d.log.Info("daemon: serving the ROS 2 service", "service", name, "type", "std_srvs/srv/Trigger")
	return s.stop, nil
}

// serve answers each request in turn until ctx ends.
func (s *snapshotServer) serve(ctx context.Context, d *Daemon) {
	defer close(s.done)
	var reply []byte
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-s.sub.Messages():
			if !ok {
				return
			}
			h, _, err := cdr.ReadRequestHeader(m.Data)
			m.Release()
			if err != nil {
				if ok, more := s.bad.Allow(); ok {
					d.log.Warn("daemon: a ~snapshot request that is not a Trigger request was ignored", "err", err, "suppressed_logs", more)
				}
				continue
			}
			success, msg := d.snapshot(ctx)
			reply = cdr.AppendTriggerReply(reply, h, success, msg)
			if err := s.wr.Write(reply); err != nil {
				d.log.Warn("daemon: cannot answer a ~snapshot request", "err", err)
			}
		}
	}
}

// stop ends the serving goroutine, waits for it and deletes the reader
// and the writer.
func (s *snapshotServer) stop() {
	s.cancel()
	s.sub.Close()
	<-s.done
	s.wr.Close()
}
