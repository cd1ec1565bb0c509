package uplink

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/uplink/mqttconn"
	"github.com/edged-robotics/edged/uplink/wire"
)

// ackListener receives the receiver's acknowledgements (wire.Ack on
// PREFIX/ROBOT/ack/uploaded) and reports each episode the cloud holds
// complete, and its repair requests (wire.Repair on
// PREFIX/ROBOT/ack/repair), which it hands to the repairer. It has its own connection with a persistent session (client
// id CLIENTID-ack), so the broker queues acknowledgements while the
// robot is offline; the publisher's session is clean on purpose (the
// outbox is where its messages wait).
type ackListener struct {
	cfg        Config
	log        *slog.Logger
	onUploaded func(episodeID string)
	onRepair   func(r *wire.Repair)
	check      func(episodeID string) error
	cancel     context.CancelFunc
	done       chan struct{}

	mu       sync.Mutex
	received uint64
	rejected uint64
}

func startAcks(cfg Config, onUploaded func(string), onRepair func(*wire.Repair), check func(string) error, log *slog.Logger) *ackListener {
	ctx, cancel := context.WithCancel(context.Background())
	a := &ackListener{cfg: cfg, log: log, onUploaded: onUploaded, onRepair: onRepair, check: check, cancel: cancel, done: make(chan struct{})}
	go a.run(ctx)
	return a
}

func (a *ackListener) close() {
	a.cancel()
	<-a.done
}

func (a *ackListener) stats() (received, rejected uint64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.received, a.rejected
}

func (a *ackListener) run(ctx context.Context) {
	defer close(a.done)
	bo := mqttconn.Backoff{Min: a.cfg.MinBackoff, Max: a.cfg.MaxBackoff}
	for ctx.Err() == nil {
		connected, err := a.session(ctx)
		if ctx.Err() != nil {
			return
		}
		if connected {
			bo.Reset()
		}
		wait := bo.Next()
		a.log.Warn("uplink: acknowledgements: disconnected; retrying", "err", err, "retry_in", wait.Round(time.Millisecond))
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
}

func (a *ackListener) session(ctx context.Context) (connected bool, err error) {
	o, err := mqttconn.ClientOptions(a.cfg.Broker, a.cfg.ClientID+"-ack", a.cfg.Auth, true)
	if err != nil {
		return false, err
	}
	lost := make(chan error, 1)
	o.SetConnectionLostHandler(func(_ mqtt.Client, err error) {
		select {
		case lost <- err:
		default:
		}
	})
	// A persistent session gets what the broker queued right after
	// CONNACK, before Subscribe returns: the default handler takes it.
	o.SetDefaultPublishHandler(a.handle)
	c := mqtt.NewClient(o)
	t := c.Connect()
	if !t.WaitTimeout(15*time.Second) || t.Error() != nil {
		c.Disconnect(0)
		err := t.Error()
		if err == nil {
			err = errors.New("connect timed out")
		}
		return false, mqttconn.Explain(a.cfg.Broker, a.cfg.Auth, err)
	}
	defer c.Disconnect(250)
	if err := a.subscribe(c); err != nil {
		return true, err
	}
	select {
	case <-ctx.Done():
		return true, nil
	case err := <-lost:
		return true, err
	}
}

// subscribe subscribes to the acknowledgements and to the repair
// requests, one topic each: a broker whose ACL predates repair requests
// refuses the second only, and acknowledgements still arrive.
func (a *ackListener) subscribe(c mqtt.Client) error {
	ack, repair := wire.AckTopic(a.cfg.TopicPrefix, a.cfg.Robot), wire.RepairTopic(a.cfg.TopicPrefix, a.cfg.Robot)
	st := c.SubscribeMultiple(map[string]byte{ack: 1, repair: 1}, a.handle)
	if !st.WaitTimeout(15*time.Second) || st.Error() != nil {
		return fmt.Errorf("uplink: subscribe %s: %v (the broker's ACL must let a robot read its ack topics, see docs/deploy.md)", ack, st.Error())
	}
	granted := st.(*mqtt.SubscribeToken).Result()
	if granted[ack] > 2 {
		return fmt.Errorf("uplink: subscribe %s: refused by the broker (its ACL must let a robot read its ack topics, see docs/deploy.md)", ack)
	}
	if granted[repair] > 2 {
		a.log.Warn("uplink: the broker refuses this robot its repair requests; what the broker loses is never sent again: "+
			"let robots read PREFIX/ROBOT/ack/+ in its ACL (docs/deploy.md)", "topic", repair)
	}
	return nil
}

// handle takes one acknowledgement or repair request; one that does not
// name an episode of this robot, or arrives on another topic, is counted
// and dropped.
func (a *ackListener) handle(_ mqtt.Client, m mqtt.Message) {
	var robot, episode string
	var repair *wire.Repair
	var err error
	switch m.Topic() {
	case wire.AckTopic(a.cfg.TopicPrefix, a.cfg.Robot):
		var ack *wire.Ack
		if ack, err = wire.DecodeAck(m.Payload()); err == nil {
			robot, episode = ack.Robot, ack.Episode
		}
	case wire.RepairTopic(a.cfg.TopicPrefix, a.cfg.Robot):
		if repair, err = wire.DecodeRepair(m.Payload()); err == nil {
			robot, episode = repair.Robot, repair.Episode
		}
	default:
		err = errors.New("uplink: not an acknowledgement topic")
	}
	if err == nil && robot != a.cfg.Robot {
		err = fmt.Errorf("uplink: ack for robot %q", robot)
	}
	if err == nil {
		err = a.check(episode)
	}
	a.mu.Lock()
	if err != nil {
		a.rejected++
	} else if repair == nil {
		a.received++
	}
	a.mu.Unlock()
	if err != nil {
		a.log.Warn("uplink: acknowledgement dropped", "topic", m.Topic(), "err", err)
		return
	}
	if repair != nil {
		a.onRepair(repair)
		return
	}
	a.onUploaded(episode)
}
