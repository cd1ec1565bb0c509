//go:build cgo && !purego

package dds

/*
#include <stdlib.h>
#include "edged_dds.h"

// A reader of ros_discovery_info as ROS 2 nodes write it: reliable,
// transient local so every participant's last sample arrives on joining.
// KEEP_ALL: the topic is keyless, so a KEEP_LAST 1 history would hold one
// sample for all participants together and lose some before they are
// taken. Raw samples through edged's sertype, decoded in Go.
static dds_entity_t edged_discovery_reader(dds_entity_t pp, const char *topic, const char *type, uint32_t max_bytes) {
	edged_sertype *st;
	dds_entity_t tp = edged_topic(pp, topic, type, max_bytes, &st);
	if (tp < 0)
		return tp;
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_entity_t rd = dds_create_reader(pp, tp, q, NULL);
	dds_delete_qos(q);
	return rd; // the topic goes with the participant
}

*/
import "C"

import (
	"context"
	"encoding/hex"
	"log/slog"
	"sync"
	"unsafe"

	"github.com/edged-robotics/edged/internal/loglimit"
)

// Participant indexes: with Cyclone's ParticipantIndex auto, each
// process on a machine takes an index below
// MaxAutoParticipantIndex; when all are taken NewParticipant returns
// ErrNoParticipantIndex (Cyclone says so only in its log, which a
// log sink watches while edged creates its domain and participant).

// Participant is one DDS domain participant: edged's presence on a ROS 2
// graph. It owns the pump (pump_cgo.go: the graph's DCPSPublication and
// ros_discovery_info readers and every subscription's) and its
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
	ws     waitset // the pump's: the graph's readers and every subscription's
	pump   pump

	discoveryLog loglimit.Limiter

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
	pp, err := watchIndex(cfg.DomainID, "create participant (is the Cyclone DDS configuration valid? see CYCLONEDDS_URI)",
		func() C.dds_entity_t { return C.dds_create_participant(C.dds_domainid_t(cfg.DomainID), nil, nil) })
	if err != nil {
		release()
		return nil, err
	}
	p := &Participant{cfg: cfg, log: cfg.Logger, pp: pp, releaseDomain: release, graph: newGraph(),
		subs: map[*Subscription]struct{}{}, pump: pump{subs: map[C.dds_attach_t]*Subscription{}, next: firstSubID}}
	rd := C.dds_create_reader(pp, C.DDS_BUILTIN_TOPIC_DCPSPUBLICATION, nil, nil)
	if rd < 0 {
		p.destroy()
		return nil, ddsError("create DCPSPublication reader", C.dds_return_t(rd))
	}
	if p.ws, err = newWaitset(pp); err != nil {
		p.destroy()
		return nil, err
	}
	if _, err = p.ws.attach(rd, idPublications); err != nil {
		p.destroy()
		return nil, err
	}
	drd := p.discoveryReader()
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.wg.Add(1)
	go p.run(rd, drd)
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

// discoveryReader creates the ros_discovery_info reader on the
// participant's waitset, or returns 0 (logged: publishers then go
// unnamed).
func (p *Participant) discoveryReader() C.dds_entity_t {
	ctopic, ctype := C.CString(discoveryTopic), C.CString(discoveryType)
	defer C.free(unsafe.Pointer(ctopic))
	defer C.free(unsafe.Pointer(ctype))
	drd := C.edged_discovery_reader(p.pp, ctopic, ctype, maxDiscoveryBytes)
	var err error
	if drd < 0 {
		err = ddsError("create reader", C.dds_return_t(drd))
	} else if _, err = p.ws.attach(drd, idDiscovery); err != nil {
		C.dds_delete(drd)
	}
	if err != nil {
		p.log.Warn("dds: cannot read ros_discovery_info; publishers' node names stay unknown", "err", err)
		return 0
	}
	return drd
}

// graphBatch is the pump's memory for the graph's takes, on the heap
// once (&pubs[0] goes to C).
type graphBatch struct {
	pubs    []C.edged_pub
	samples []C.edged_sample
}

func newGraphBatch() *graphBatch {
	return &graphBatch{pubs: make([]C.edged_pub, 64), samples: make([]C.edged_sample, 16)}
}

// takeGraph takes a batch of DCPSPublication and of ros_discovery_info
// samples into the graph (what is left keeps its condition triggered).
func (p *Participant) takeGraph(rd, drd C.dds_entity_t, g *graphBatch) {
	n := C.edged_graph_take(rd, &g.pubs[0], C.int(len(g.pubs)))
	if n < 0 {
		p.log.Warn("dds: reading DCPSPublication failed; the graph may be stale", "err", ddsError("take", C.dds_return_t(n)))
	}
	for i := 0; i < int(n); i++ {
		p.notePublication(&g.pubs[i])
	}
	if drd != 0 {
		d := C.edged_take(drd, &g.samples[0], C.int(len(g.samples)))
		for i := 0; i < int(d); i++ {
			p.noteDiscovery(&g.samples[i])
		}
	}
}

// noteDiscovery decodes one ros_discovery_info sample into the graph's
// node names and releases it.
func (p *Participant) noteDiscovery(c *C.edged_sample) {
	defer C.edged_unref(c.sd)
	info, err := DecodeParticipantInfo(unsafe.Slice((*byte)(unsafe.Pointer(c.data)), int(c.size)))
	if err != nil {
		if ok, more := p.discoveryLog.Allow(); ok {
			p.log.Warn("dds: ignoring a ros_discovery_info sample that does not decode", "err", err, "suppressed_logs", more)
		}
		return
	}
	p.graph.noteNodes(info)
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

// Close closes every subscription, stops the pump and leaves
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
	p.ws.wake()
	p.wg.Wait()
	p.destroy()
	return nil
}

// destroy deletes the participant and everything in it.
func (p *Participant) destroy() {
	C.dds_delete(p.pp)
	p.releaseDomain()
}
