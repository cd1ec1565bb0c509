package sink

import (
	"context"
	"errors"
	"fmt"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/uplink/mqttconn"
)

// Filter is the subscription topic filter.
func (s *Sink) Filter() string {
	f := s.cfg.Prefix + "/+/+"
	if s.cfg.Group != "" {
		f = "$share/" + s.cfg.Group + "/" + f
	}
	return f
}

// Run connects, subscribes and receives until ctx ends, reconnecting
// with a jittered backoff. A message the sink could not write is left
// unacknowledged and the session is ended, since an MQTT 3.1.1 broker
// redelivers unacknowledged messages only when the (persistent) session
// resumes; the backoff keeps growing while writes keep failing.
func (s *Sink) Run(ctx context.Context) error {
	if s.cfg.Broker == "" {
		return errors.New("sink: --broker is required")
	}
	// Acknowledgements recorded by this sink's previous run or by sinks
	// that stopped before publishing them (acks.go).
	s.stampAlive()
	s.scanAcks(true)
	s.nextAckScan = s.now().Add(ackScanEvery)
	bo := mqttconn.Backoff{Max: 10 * time.Second}
	for ctx.Err() == nil {
		before := s.connects.Load()
		err := s.session(ctx)
		if ctx.Err() != nil {
			break
		}
		if s.connects.Load() != before && !errors.Is(err, ErrRetry) {
			bo.Reset()
		}
		wait := bo.Next()
		s.log.Warn("sink: disconnected; retrying", "err", err, "retry_in", wait.Round(time.Millisecond))
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	return nil
}

// session is one connection: connect, subscribe, then receive until ctx
// ends, the connection is lost or a message must be redelivered.
func (s *Sink) session(ctx context.Context) error {
	o, lost, err := s.clientOptions()
	if err != nil {
		return err
	}
	redeliver := make(chan error, 1)
	lanes := s.startLanes(ctx, redeliver)
	defer lanes.stop()
	handler := lanes.dispatch
	// The session is persistent: the broker sends what it queued right
	// after CONNACK, before Subscribe returns. Without a default handler
	// paho would acknowledge those messages and drop them.
	o.SetDefaultPublishHandler(handler)
	c := mqtt.NewClient(o)
	t := c.Connect()
	if !t.WaitTimeout(15*time.Second) || t.Error() != nil {
		c.Disconnect(0)
		return mqttconn.Explain(s.cfg.Broker, s.cfg.Auth, t.Error())
	}
	defer func() {
		lanes.stop() // first: paho may be waiting in dispatch
		c.Disconnect(250)
	}()
	st := c.Subscribe(s.Filter(), 1, handler)
	if !st.WaitTimeout(15*time.Second) || st.Error() != nil {
		return fmt.Errorf("sink: subscribe %s: %v", s.Filter(), st.Error())
	}
	s.connects.Add(1)
	s.connected.Store(true)
	defer s.connected.Store(false)
	s.log.Info("sink: receiving", "broker", s.cfg.Broker, "filter", s.Filter(), "out", s.cfg.Out)
	return s.serve(ctx, c, lost, redeliver)
}

// clientOptions are the session's MQTT options: messages acknowledged
// only once written (the lanes do it), and a lost connection reported
// on lost.
func (s *Sink) clientOptions() (*mqtt.ClientOptions, <-chan error, error) {
	o, err := mqttconn.ClientOptions(s.cfg.Broker, s.cfg.ClientID, s.cfg.Auth, true)
	if err != nil {
		return nil, nil, err
	}
	lost := make(chan error, 1)
	o.SetConnectionLostHandler(func(_ mqtt.Client, err error) {
		select {
		case lost <- err:
		default:
		}
	})
	o.SetAutoAckDisabled(true)
	return o, lost, nil
}

// serve runs a connected session: every second it expires partial
// episodes, keeps this sink alive in its group, publishes the
// acknowledgements and asks for repairs; it returns when ctx ends (nil),
// the connection is lost or a message must be redelivered.
func (s *Sink) serve(ctx context.Context, c mqtt.Client, lost, redeliver <-chan error) error {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-lost:
			return err
		case err := <-redeliver:
			s.log.Warn("sink: a message could not be taken; reconnecting so the broker redelivers it", "err", err)
			return err
		case <-tick.C:
			s.housekeep(ctx, c)
		case <-s.ackNotify:
			s.publishAcks(ctx, c)
		}
	}
}

// housekeep is the session's periodic work.
func (s *Sink) housekeep(ctx context.Context, c mqtt.Client) {
	s.expire()
	now := s.now()
	if !now.Before(s.nextAlive) {
		s.stampAlive()
	}
	if !now.Before(s.nextAckScan) {
		s.scanAcks(false)
		s.nextAckScan = now.Add(ackScanEvery)
	}
	s.publishAcks(ctx, c)
	s.askRepairs(ctx, c)
}
