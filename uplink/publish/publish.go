// Package publish moves messages from the outbox to an MQTT 3.1.1
// broker: QoS 1, one connection at a time with jittered reconnects, a
// bounded window of messages in flight, chunking to the maximum payload,
// a bandwidth cap, and a retained status with a last will, refreshed
// every Config.StatusEvery whether the outbox is empty or not. A message
// that cannot be sent (it does not decode) is dropped with outbox.Drop,
// counted in Stats.Corrupt, never as acknowledged.
//
// Delivery proof: a message is acknowledged in the outbox only when every
// one of its chunks' paho tokens completed with no error AND the
// connection that carried them was still up when they completed. A token
// that completes because the connection dropped, or an ack that races a
// connection loss, leaves the message in the outbox; it is sent again,
// with the same id, on the next connection (the receiver drops
// duplicates by id). paho's own session resume is off (clean session,
// no automatic reconnect) so that the outbox is the only place messages
// wait.
//
// Concurrency: Start launches one run goroutine (owned by the Publisher;
// Close cancels and waits) plus one waiter goroutine per message in
// flight, all finished before Close returns.
package publish

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/internal/fielderr"

	"github.com/edged-robotics/edged/uplink/mqttconn"
	"github.com/edged-robotics/edged/uplink/outbox"
	"github.com/edged-robotics/edged/uplink/wire"
)

// Config of a Publisher.
type Config struct {
	Broker   string // tcp://host:1883, ssl://host:8883
	ClientID string
	Auth     mqttconn.Auth
	// Prefix and Robot form the topics PREFIX/ROBOT/KIND.
	Prefix string
	Robot  string
	// MaxPayload per MQTT message; larger messages are chunked.
	MaxPayload int
	// Window: messages in flight at most. Default 32.
	Window int
	// Bandwidth in bytes per second; 0: unlimited.
	Bandwidth int64
	// MinBackoff, MaxBackoff between connection attempts. Defaults
	// 500ms and 30s.
	MinBackoff, MaxBackoff time.Duration
	// AckTimeout: a message not acknowledged in this time is sent again
	// on a fresh connection. Default 60s.
	AckTimeout time.Duration
	// Version goes into the status.
	Version string
	// StatusEvery refreshes the retained status, whether the outbox is
	// empty or holds a backlog. Default 30s.
	StatusEvery time.Duration
	// Now is the clock of the status time and Stats.LastAck. Default
	// time.Now.
	Now func() time.Time
}

// Stats are cumulative counts.
type Stats struct {
	Connected     bool
	Connects      uint64
	ConnectErrors uint64
	LastError     string
	Published     uint64    // messages acknowledged by the broker
	LastAck       time.Time // when the broker last acknowledged one (zero: never)
	Chunks        uint64    // MQTT publishes (chunks) sent
	Bytes         uint64    // payload bytes sent
	Resent        uint64    // messages returned to the outbox unacknowledged
	Corrupt       uint64    // outbox messages that did not decode, dropped (outbox Stats.Dropped, not Acked)
	ThrottledNS   uint64    // time spent waiting for the bandwidth cap
}

// Publisher is one running publisher; see Start.
type Publisher struct {
	cfg    Config
	ob     *outbox.Outbox
	log    *slog.Logger
	status func() wire.Status
	cancel context.CancelFunc
	done   chan struct{}

	connected                                                 atomic.Bool
	connects, connectErrors, published, chunks, bytes, resent atomic.Uint64
	corrupt, throttled                                        atomic.Uint64
	lastErr                                                   atomic.Pointer[string]
	lastAck                                                   atomic.Int64 // unix ns
	sessionStart                                              atomic.Int64 // unix ns the connection began (wire.Status.Session)
}

// Bounds of Config.MaxPayload, the config file's uplink.max_payload.
const (
	// MinMaxPayload leaves room for a chunk's envelope.
	MinMaxPayload = 1024
	// MaxMaxPayload is the MQTT limit on a message (256 MiB).
	MaxMaxPayload = 256 << 20
)

// CheckMaxPayload is the one rule of uplink.max_payload (Start applies
// it, and so do uplink.Config.Validate and with it `edged config check`).
func CheckMaxPayload(n int) error {
	switch {
	case n < MinMaxPayload:
		return fielderr.New("uplink.max_payload", "must be >= %d, got %d", MinMaxPayload, n)
	case n > MaxMaxPayload:
		return fielderr.New("uplink.max_payload", "must be <= 256MiB (the MQTT limit), got %d", n)
	}
	return nil
}

// Start validates cfg and starts publishing ob. status, if not nil, fills
// the backlog part of the retained status.
func Start(cfg Config, ob *outbox.Outbox, status func() wire.Status, log *slog.Logger) (*Publisher, error) {
	if _, _, err := mqttconn.BrokerURL(cfg.Broker); err != nil {
		return nil, err
	}
	if err := CheckMaxPayload(cfg.MaxPayload); err != nil {
		return nil, err
	}
	if cfg.Window <= 0 {
		cfg.Window = 32
	}
	if cfg.AckTimeout <= 0 {
		cfg.AckTimeout = 60 * time.Second
	}
	if cfg.StatusEvery <= 0 {
		cfg.StatusEvery = 30 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if log == nil {
		log = slog.Default()
	}
	if status == nil {
		status = func() wire.Status { return wire.Status{} }
	}
	if _, err := cfg.Auth.TLSConfig(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := &Publisher{cfg: cfg, ob: ob, log: log, status: status, cancel: cancel, done: make(chan struct{})}
	go p.run(ctx)
	return p, nil
}

// Close stops publishing: the status becomes offline, messages in flight
// stay in the outbox. It waits for every goroutine.
func (p *Publisher) Close() {
	p.cancel()
	<-p.done
}

// Stats returns a snapshot.
func (p *Publisher) Stats() Stats {
	s := Stats{Connected: p.connected.Load(), Connects: p.connects.Load(), ConnectErrors: p.connectErrors.Load(),
		Published: p.published.Load(), Chunks: p.chunks.Load(), Bytes: p.bytes.Load(), Resent: p.resent.Load(),
		Corrupt: p.corrupt.Load(), ThrottledNS: p.throttled.Load()}
	if ns := p.lastAck.Load(); ns != 0 {
		s.LastAck = time.Unix(0, ns)
	}
	if e := p.lastErr.Load(); e != nil {
		s.LastError = *e
	}
	return s
}

func (p *Publisher) topic(kind string) string { return p.cfg.Prefix + "/" + p.cfg.Robot + "/" + kind }

func (p *Publisher) statusPayload(state string) []byte {
	st := p.status()
	st.State, st.Version, st.Time = state, p.cfg.Version, p.cfg.Now().UnixNano()
	// "offline" is a connection's last word (its will, or a clean
	// shutdown): it outranks the connection's "online"s, whose Time is
	// later than the will's.
	st.Session, st.Final = p.sessionStart.Load(), state == "offline"
	body, _ := st.MarshalMsg(nil)
	env := wire.New(wire.NewID(), p.cfg.Robot, "", wire.KindStatus, 0, st.Time, body)
	b, _ := env.MarshalMsg(nil)
	return b
}

func (p *Publisher) run(ctx context.Context) {
	defer close(p.done)
	bo := mqttconn.Backoff{Min: p.cfg.MinBackoff, Max: p.cfg.MaxBackoff}
	bucket := newBucket(p.cfg.Bandwidth)
	for ctx.Err() == nil {
		c, lost, err := p.connect()
		if err != nil {
			p.connectErrors.Add(1)
			msg := err.Error()
			p.lastErr.Store(&msg)
			wait := bo.Next()
			p.log.Warn("uplink: cannot connect; messages wait in the outbox", "err", err, "retry_in", wait.Round(time.Millisecond))
			sleep(ctx, wait)
			continue
		}
		bo.Reset()
		p.connects.Add(1)
		p.connected.Store(true)
		p.log.Info("uplink: connected", "broker", p.cfg.Broker)
		p.session(ctx, c, lost, bucket)
		p.connected.Store(false)
		if ctx.Err() == nil {
			wait := bo.Next()
			p.log.Warn("uplink: connection lost; reconnecting", "retry_in", wait.Round(time.Millisecond))
			sleep(ctx, wait)
		}
	}
}

func (p *Publisher) connect() (mqtt.Client, chan struct{}, error) {
	o, err := mqttconn.ClientOptions(p.cfg.Broker, p.cfg.ClientID, p.cfg.Auth, false)
	if err != nil {
		return nil, nil, err
	}
	lost := make(chan struct{})
	var once sync.Once
	// This connection's statuses and its will share it; it outranks
	// the last connection's even when the clock stepped back since
	// (wire.Status.Newer: else the sink keeps the last one's will).
	p.sessionStart.Store(max(p.cfg.Now().UnixNano(), p.sessionStart.Load()+1))
	o.SetBinaryWill(p.topic(wire.KindStatus), p.statusPayload("offline"), 1, true)
	o.SetConnectionLostHandler(func(mqtt.Client, error) { once.Do(func() { close(lost) }) })
	c := mqtt.NewClient(o)
	t := c.Connect()
	if !t.WaitTimeout(15*time.Second) || t.Error() != nil {
		err := t.Error()
		if err == nil {
			err = errors.New("connect timed out")
		}
		c.Disconnect(0)
		return nil, nil, mqttconn.Explain(p.cfg.Broker, p.cfg.Auth, err)
	}
	return c, lost, nil
}

// session publishes until the connection is lost or ctx ends.
func (p *Publisher) session(ctx context.Context, c mqtt.Client, lost chan struct{}, bucket *bucket) {
	sctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer p.endSession(ctx, c, cancel, &wg)
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-lost:
			p.connected.Store(false)
			cancel()
		case <-sctx.Done():
		}
	}()
	p.publishStatus(c)
	tick := time.NewTicker(p.cfg.StatusEvery)
	defer tick.Stop()
	slots := make(chan struct{}, p.cfg.Window)
	for {
		// Refresh the status on its period even when the outbox never
		// runs dry: a steady backlog is when the cloud most needs to
		// see it move.
		select {
		case <-tick.C:
			p.publishStatus(c)
		default:
		}
		select {
		case slots <- struct{}{}:
		case <-tick.C:
			p.publishStatus(c)
			continue
		case <-sctx.Done():
			return
		}
		it, ok := p.waitNext(sctx, c, tick.C)
		if !ok {
			<-slots
			return
		}
		tokens, err := p.send(sctx, c, it, bucket)
		if err != nil {
			<-slots
			if errors.Is(err, errCorrupt) {
				continue // dropped by send
			}
			p.ob.Release(it.Seq)
			p.resent.Add(1)
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			p.await(sctx, it.Seq, tokens)
		}()
	}
}

// endSession stops the session's goroutines and waits for them, says
// "offline" itself when edged is stopping (the will speaks only for a
// lost connection), and disconnects.
func (p *Publisher) endSession(ctx context.Context, c mqtt.Client, cancel context.CancelFunc, wg *sync.WaitGroup) {
	cancel()
	wg.Wait()
	if ctx.Err() != nil && c.IsConnectionOpen() {
		t := c.Publish(p.topic(wire.KindStatus), 1, true, p.statusPayload("offline"))
		t.WaitTimeout(2 * time.Second)
	}
	c.Disconnect(250)
}

// waitNext returns the outbox's next message to send, refreshing the
// status on tick while the outbox is empty; ok is false when the session
// ends or the outbox fails.
func (p *Publisher) waitNext(ctx context.Context, c mqtt.Client, tick <-chan time.Time) (it outbox.Item, ok bool) {
	for {
		it, ok, err := p.ob.TryNext()
		if err != nil {
			return outbox.Item{}, false
		}
		if ok {
			return it, true
		}
		select {
		case <-ctx.Done():
			return outbox.Item{}, false
		case <-tick:
			p.publishStatus(c)
		case <-p.ob.Notify():
		}
	}
}

var errCorrupt = errors.New("corrupt outbox message")

// send publishes every chunk of it and returns their tokens.
func (p *Publisher) send(ctx context.Context, c mqtt.Client, it outbox.Item, bucket *bucket) ([]mqtt.Token, error) {
	env, err := wire.Decode(it.Data, 0)
	var payloads [][]byte
	if err == nil {
		payloads, err = wire.Split(env, p.cfg.MaxPayload)
	}
	if err != nil {
		p.corrupt.Add(1)
		p.log.Error("uplink: dropping a message that cannot be sent", "seq", it.Seq, "err", err)
		p.ob.Drop(it.Seq) // not Ack: the broker never saw it
		return nil, fmt.Errorf("%w: %v", errCorrupt, err)
	}
	topic := p.topic(env.Kind)
	tokens := make([]mqtt.Token, 0, len(payloads))
	for _, b := range payloads {
		waited, err := bucket.take(ctx, len(b))
		p.throttled.Add(uint64(waited))
		if err != nil {
			return nil, err
		}
		tokens = append(tokens, c.Publish(topic, 1, false, b))
		p.chunks.Add(1)
		p.bytes.Add(uint64(len(b)))
	}
	return tokens, nil
}

// await acknowledges seq in the outbox when every token completed without
// error while the session was alive; anything else sends it again.
func (p *Publisher) await(ctx context.Context, seq uint64, tokens []mqtt.Token) {
	deadline := time.NewTimer(p.cfg.AckTimeout)
	defer deadline.Stop()
	for _, t := range tokens {
		select {
		case <-t.Done():
		case <-ctx.Done():
		case <-deadline.C:
		}
		if !isDone(t) || t.Error() != nil || ctx.Err() != nil {
			p.ob.Release(seq)
			p.resent.Add(1)
			return
		}
	}
	p.ob.Ack(seq)
	p.published.Add(1)
	p.lastAck.Store(p.cfg.Now().UnixNano())
}

func isDone(t mqtt.Token) bool {
	select {
	case <-t.Done():
		return true
	default:
		return false
	}
}

func (p *Publisher) publishStatus(c mqtt.Client) {
	// Fire and forget: a lost status is replaced by the next one.
	c.Publish(p.topic(wire.KindStatus), 1, true, p.statusPayload("online"))
}

func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// bucket is a token bucket of bytes with one second of burst.
type bucket struct {
	rate   float64
	tokens float64
	last   time.Time
}

func newBucket(rate int64) *bucket {
	return &bucket{rate: float64(rate), tokens: float64(rate), last: time.Now()}
}

// take spends n bytes, waiting while the bucket is in debt.
func (b *bucket) take(ctx context.Context, n int) (time.Duration, error) {
	if b.rate <= 0 {
		return 0, nil
	}
	now := time.Now()
	b.tokens = min(b.rate, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	b.last = now
	b.tokens -= float64(n)
	if b.tokens >= 0 {
		return 0, nil
	}
	wait := time.Duration(-b.tokens / b.rate * float64(time.Second))
	sleep(ctx, wait)
	return wait, ctx.Err()
}
