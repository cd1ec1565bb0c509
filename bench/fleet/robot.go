package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/uplink/wire"
)

const prefix = "edged"

type fleet struct {
	o      options
	ids    *fleetPKI // -tls, else nil
	robots []*robot
}

type robot struct {
	id, ep string
	seed   uint64
	start  time.Time
	c      mqtt.Client
	tls    *tls.Config // -tls: its own identity
	rng    *rand.Rand
	ctx    context.Context // the run's: ends retries

	msgs, bytes int64
	reconnected bool
	segments    int
	sheets      map[string]int // camera topic -> sheets sent
	last        *wire.Envelope

	mu    sync.Mutex
	acks  int
	endAt time.Time
	ackAt time.Time
}

func newFleet(o options, ids *fleetPKI) *fleet {
	f := &fleet{o: o, ids: ids}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range o.robots {
		id := fmt.Sprintf("sim-%05d", i)
		r := &robot{id: id, seed: uint64(i), start: base.Add(time.Duration(i) * time.Millisecond), sheets: map[string]int{},
			rng: rand.New(rand.NewPCG(uint64(i), 1))}
		r.ep = episode.NewID(id, r.start, "")
		f.robots = append(f.robots, r)
	}
	return f
}

// connect connects every robot, 50 at a time (a fleet does not boot in
// one millisecond, and a broker's accept queue is finite).
func (f *fleet) connect(ctx context.Context) error {
	sem := make(chan struct{}, 50)
	errs := make(chan error, len(f.robots))
	var wg sync.WaitGroup
	for _, r := range f.robots {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if f.ids != nil && r.tls == nil {
				var err error
				if r.tls, err = f.ids.robotTLS(r.id); err != nil {
					errs <- err
					return
				}
			}
			errs <- r.connect(f.o.broker)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

func (f *fleet) close() {
	for _, r := range f.robots {
		r.c.Disconnect(100)
	}
}

func (r *robot) connect(broker string) error {
	o := mqtt.NewClientOptions().AddBroker(broker).SetClientID("robot-" + r.id).SetCleanSession(false).
		SetAutoReconnect(true).SetMaxReconnectInterval(2 * time.Second).SetConnectRetry(true).
		SetOrderMatters(false)
	if r.tls != nil {
		o.SetTLSConfig(r.tls)
	}
	o.SetOnConnectHandler(func(c mqtt.Client) {
		c.Subscribe(wire.AckTopic(prefix, r.id), 1, r.onAck)
	})
	r.c = mqtt.NewClient(o)
	if t := r.c.Connect(); !t.WaitTimeout(30*time.Second) || t.Error() != nil {
		return fmt.Errorf("robot %s: connect: %v", r.id, t.Error())
	}
	return nil
}

func (r *robot) onAck(_ mqtt.Client, m mqtt.Message) {
	a, err := wire.DecodeAck(m.Payload())
	if err != nil || a.Episode != r.ep {
		return
	}
	r.mu.Lock()
	r.acks++
	if r.ackAt.IsZero() {
		r.ackAt = time.Now()
	}
	r.mu.Unlock()
}

func (r *robot) ackCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.acks
}

func (r *robot) latency() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ackAt.Sub(r.endAt)
}

// play records one episode in real time.
func (r *robot) play(ctx context.Context, o options) {
	r.ctx = ctx
	wait := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	if !wait(time.Duration(r.rng.Int64N(int64(10 * time.Second)))) {
		return
	}
	m := wire.Manifest{ID: r.ep, Robot: r.id, Start: r.start.UnixNano(), Created: r.start.UnixNano(), Instruction: "tidy the table"}
	r.send(o, wire.KindEpisodeStart, 0, &m)
	drop := r.rng.Float64() < o.reconnect
	for sec := 1; sec <= int(o.episode/time.Second); sec++ {
		if !wait(time.Second) {
			return
		}
		if sec%10 == 0 {
			for c := range o.cameras {
				r.sheet(o, fmt.Sprintf("/cam%d/image/compressed", c))
			}
		}
		if sec%15 == 0 {
			r.segment(o, sec)
		}
		if drop && sec == int(o.episode/time.Second)/2 {
			r.reconnect(o)
		}
	}
	m.Closed, m.End, m.Outcome, m.EndReason, m.Segments = true, r.start.Add(o.episode).UnixNano(), "completed", "idle", int64(r.segments)
	for c := range o.cameras {
		cam := fmt.Sprintf("/cam%d/image/compressed", c)
		n := int64(r.sheets[cam])
		m.Produced = append(m.Produced, wire.CameraCount{Camera: episode.CameraDir(cam), Sheets: n, Snippets: n,
			SheetTokens: n * sheetTokens})
	}
	r.mu.Lock()
	r.endAt = time.Now()
	r.mu.Unlock()
	r.send(o, wire.KindEpisodeEnd, 1, &m)
}

func (r *robot) segment(o options, sec int) {
	i := r.segments
	r.segments++
	s := wire.Segment{Index: int64(i), StartSec: float64(sec - 15), EndSec: float64(sec), Label: fmt.Sprint("STEP_", i),
		Source: "/task/state", Kind: "string", Outcome: "completed",
		Start: r.start.Add(time.Duration(sec-15) * time.Second).UnixNano(), End: r.start.Add(time.Duration(sec) * time.Second).UnixNano()}
	r.send(o, wire.KindSegment, uint64(i), &s)
}

// sheetJPEG is sheet index of camera's bytes: deterministic, so the
// check at the end can compare what the sinks wrote.
func (r *robot) sheetJPEG(camera string, index int) []byte {
	g := rand.New(rand.NewPCG(r.seed, uint64(index)<<8|uint64(len(camera))))
	b := make([]byte, 40_000+g.IntN(50_000))
	for i := range b {
		b[i] = byte(g.Uint32())
	}
	b[0], b[1] = 0xff, 0xd8
	return b
}

// sheetTokens is each simulated sheet's vlm_tokens (a published 1120 x
// 640 contact sheet), which the end manifest announces as edged does.
const sheetTokens = 516

func (r *robot) sheet(o options, camera string) {
	r.sheets[camera]++
	k := r.sheets[camera]
	meta := fmt.Sprintf(`{"kind":"episode","index":%d,"camera":%q,"width":1120,"height":640,"vlm_tokens":%d,`+
		`"interval_seconds":0.5,"tiles":[{"tick":%d,"seconds":%d}]}`, k, camera, sheetTokens, (k-1)*20, (k-1)*10)
	b := wire.SheetBody{Camera: camera, Index: int64(k), Segment: -1, Name: fmt.Sprintf("sheet-%04d", k),
		Meta: []byte(meta), JPEG: r.sheetJPEG(camera, k)}
	sn := wire.Snippet{Episode: r.ep, Camera: camera, SheetIndex: int64(k), EpisodeStart: r.start.UnixNano(),
		Interval: int64(500 * time.Millisecond), FirstTick: int64((k - 1) * 20), LastTick: int64(k*20 - 1),
		Names: []string{"j1", "j2", "j3", "j4", "j5", "j6", "j7"}}
	for t := sn.FirstTick; t <= sn.LastTick; t++ {
		p, v, e := make([]float64, 7), make([]float64, 7), make([]float64, 7)
		for j := range p {
			p[j], v[j], e[j] = r.rng.Float64(), r.rng.Float64(), r.rng.Float64()
		}
		sn.Samples = append(sn.Samples, wire.JointSample{Tick: t, Stamp: r.start.UnixNano() + t*sn.Interval, Position: p, Velocity: v, Effort: e})
	}
	body, err := wire.EncodeSnippet(&sn)
	if err != nil {
		log.Fatal(err)
	}
	r.publish(o, wire.New(wire.NewID(), r.id, r.ep, wire.KindSnippet, uint64(k), time.Now().UnixNano(), body))
	r.send(o, wire.KindSheet, uint64(k), &b)
}

type marshaler interface{ MarshalMsg([]byte) ([]byte, error) }

func (r *robot) send(o options, kind string, seq uint64, v marshaler) {
	body, err := v.MarshalMsg(nil)
	if err != nil {
		log.Fatal(err)
	}
	r.publish(o, wire.New(wire.NewID(), r.id, r.ep, kind, seq, time.Now().UnixNano(), body))
}

// publish sends e (in chunks above the payload cap) with QoS 1, each
// part again until the broker acknowledged it, as the outbox does.
func (r *robot) publish(o options, e *wire.Envelope) {
	parts, err := wire.Split(e, o.maxPayload)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range parts {
		for try := 0; ; try++ {
			t := r.c.Publish(prefix+"/"+r.id+"/"+e.Kind, 1, false, p)
			if t.WaitTimeout(60*time.Second) && t.Error() == nil {
				break
			}
			if try == 300 || r.ctx.Err() != nil {
				log.Printf("robot %s: publish failed for 5 minutes: %v", r.id, t.Error())
				return
			}
			time.Sleep(time.Second) // the client reconnects by itself; this paces the retries
		}
	}
	r.msgs++
	r.bytes += int64(len(e.Body))
	r.last = e
}

// reconnect drops the connection, comes back on the same session and
// publishes the last message again, as a robot does that lost the PUBACK.
func (r *robot) reconnect(o options) {
	r.reconnected = true
	r.c.Disconnect(0)
	// A new client on the same persistent session: paho's own client,
	// once disconnected, does not come back by itself.
	if err := r.connect(o.broker); err != nil {
		log.Printf("robot %s: reconnect: %v", r.id, err)
	}
	if r.last != nil {
		dup := *r.last
		r.publish(o, &dup)
		r.msgs--
		r.bytes -= int64(len(dup.Body))
	}
}

// waitAcks waits until every robot heard its ack, or timeout.
func (f *fleet) waitAcks(ctx context.Context, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		missing := 0
		for _, r := range f.robots {
			if r.ackCount() == 0 {
				missing++
			}
		}
		if missing == 0 {
			time.Sleep(2 * time.Second) // a late duplicate ack would show now
			return
		}
		time.Sleep(500 * time.Millisecond) // acks arrive over MQTT; this is a progress poll, not a sync point
	}
}

// verify reads every episode back through the store's reader: complete,
// every segment, every sheet byte for byte.
func (f *fleet) verify(store string, lost int) (corrupt, lostOut int) {
	lostOut = lost
	for _, r := range f.robots {
		e, err := episode.Load(store, r.ep)
		if err != nil || !e.Manifest.Complete || len(e.Segments) != r.segments {
			if r.ackCount() > 0 {
				lostOut++ // acknowledged, yet not complete on disk
			}
			continue
		}
		for cam, n := range r.sheets {
			for k := 1; k <= n; k++ {
				b, err := os.ReadFile(filepath.Join(episode.SheetDir(e.Dir, cam), fmt.Sprintf("sheet-%04d.jpg", k)))
				if err != nil || !bytes.Equal(b, r.sheetJPEG(cam, k)) {
					corrupt++
					break
				}
			}
		}
	}
	return corrupt, lostOut
}
