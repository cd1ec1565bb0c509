//go:build cgo && !purego

package dds

// #include "edged_dds.h"
// int edged_graph_take(dds_entity_t rd, edged_pub *out, int n);
import "C"

import (
	"context"
	"encoding/hex"
	"log/slog"
	"sync"
	"unsafe"
)

// Participant is one DDS domain participant: edged's presence on a ROS 2
// graph. It owns the graph goroutine (DCPSPublication) and its
// subscriptions.
type Participant struct {
	cfg           Config
	log           *slog.Logger
	pp            C.dds_entity_t
	releaseDomain func()
	graph         *graph

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	gws    waitset

	mu     sync.Mutex // guards subs, closed
	subs   map[*Subscription]struct{}
	closed bool
}

// NewParticipant joins cfg.DomainID and starts following the graph.
func NewParticipant(cfg Config) (*Participant, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	release, err := acquireDomain(cfg)
	if err != nil {
		return nil, err
	}
	pp := C.dds_create_participant(C.dds_domainid_t(cfg.DomainID), nil, nil)
	if pp < 0 {
		release()
		return nil, ddsError("create participant (is the Cyclone DDS configuration valid? see CYCLONEDDS_URI)", C.dds_return_t(pp))
	}
	p := &Participant{cfg: cfg, log: cfg.Logger, pp: pp, releaseDomain: release, graph: newGraph(),
		subs: map[*Subscription]struct{}{}}
	rd := C.dds_create_reader(pp, C.DDS_BUILTIN_TOPIC_DCPSPUBLICATION, nil, nil)
	if rd < 0 {
		p.destroy()
		return nil, ddsError("create DCPSPublication reader", C.dds_return_t(rd))
	}
	if p.gws, err = newWaitset(pp, rd); err != nil {
		p.destroy()
		return nil, err
	}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.wg.Add(1)
	go p.followGraph(rd)
	return p, nil
}

// DomainID is the participant's domain.
func (p *Participant) DomainID() int { return p.cfg.DomainID }

// Publications returns the domain's publications now, sorted by topic.
func (p *Participant) Publications() []Publication {
	pubs, _ := p.graph.snapshot()
	return pubs
}

// WaitPublications blocks until ok accepts the domain's publications (it
// is called on every change) or ctx ends, and returns the last ones seen.
func (p *Participant) WaitPublications(ctx context.Context, ok func([]Publication) bool) ([]Publication, error) {
	return p.graph.wait(ctx, ok)
}

// followGraph is the graph goroutine: it takes DCPSPublication samples
// into the graph until Close.
func (p *Participant) followGraph(rd C.dds_entity_t) {
	defer p.wg.Done()
	var batch [64]C.edged_pub
	for p.ctx.Err() == nil {
		n := C.edged_graph_take(rd, &batch[0], C.int(len(batch)))
		if n < 0 {
			p.log.Warn("dds: reading DCPSPublication failed; the graph may be stale", "err", ddsError("take", C.dds_return_t(n)))
		}
		for i := 0; i < int(n); i++ {
			p.notePublication(&batch[i])
		}
		if n <= 0 {
			p.gws.wait()
		}
	}
}

func (p *Participant) notePublication(c *C.edged_pub) {
	if c.alive == 0 {
		p.graph.update(uint64(c.handle), false, Publication{})
		return
	}
	if c.truncated != 0 {
		return // a name over maxNameBytes: not something edged can subscribe
	}
	pub := Publication{DDSTopic: C.GoString(&c.topic[0]), DDSType: C.GoString(&c.type_name[0]),
		GUID: hex.EncodeToString(C.GoBytes(unsafe.Pointer(&c.guid[0]), 16))}
	pub.Topic, _ = ROSTopic(pub.DDSTopic)
	pub.Type, _ = ROSType(pub.DDSType)
	pub.QoS = QoS{Reliability: BestEffort, Durability: Volatile, Depth: int(c.depth)}
	if c.reliable != 0 {
		pub.QoS.Reliability = Reliable
	}
	if c.transient_local != 0 {
		pub.QoS.Durability = TransientLocal
	}
	p.graph.update(uint64(c.handle), true, pub)
}

// Close closes every subscription, stops the graph goroutine and leaves
// the domain. Safe to call twice.
func (p *Participant) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	subs := make([]*Subscription, 0, len(p.subs))
	for s := range p.subs {
		subs = append(subs, s)
	}
	p.mu.Unlock()
	for _, s := range subs {
		s.Close()
	}
	p.cancel()
	p.gws.wake()
	p.wg.Wait()
	p.destroy()
	return nil
}

// destroy deletes the participant and everything in it.
func (p *Participant) destroy() {
	C.dds_delete(p.pp)
	p.releaseDomain()
}
