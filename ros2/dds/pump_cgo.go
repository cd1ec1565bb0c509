//go:build cgo && !purego

package dds

/*
#include <stdlib.h>
#include "edged_dds.h"
*/
import "C"

import (
	"runtime"
	"sync"
	"time"
	"unsafe"

	"github.com/edged-robotics/edged/internal/yield"
)

// The participant's pump is its one goroutine that blocks in Cyclone: it
// waits on the participant's waitset, where the graph's readers and every
// subscription's reader are attached, and takes from whichever holds
// samples. A goroutine blocked in a C call keeps its P in the syscall
// state; with one such goroutine per topic (and GOMAXPROCS 2 on a small
// robot) the runtime took each P back and handed it on, and its monitor
// thread polled every 20 us doing so: ~20% of the ROS 2 ingest's CPU
// (perf, scripts/bench-ros2.sh's load). One blocked goroutine leaves the
// other P idle, which the runtime leaves alone.
//
// Attach arguments on the waitset:
const (
	idTrigger      = 0  // the waitset's own trigger: Participant.Close
	idPublications = 1  // DCPSPublication
	idDiscovery    = 2  // ros_discovery_info
	firstSubID     = 16 // subscriptions, one each, never reused
)

// minTriggered is how many triggered conditions a wait reports at first;
// when more triggered, the pump grows its array to hold them all for the
// next wait (which returns at once: a read condition stays triggered
// while its reader holds samples). Cyclone reports them in the same
// order each time, so a fixed array would starve the ones past its end.
const minTriggered = 32

// batchSize is how many samples one take moves.
const batchSize = 64

// pump is the participant's table of attached subscriptions. mu is held
// while the pump serves one, so detach returns once no take or Handler
// call of that subscription is running.
type pump struct {
	mu   sync.Mutex
	subs map[C.dds_attach_t]*Subscription
	next C.dds_attach_t
}

// attach puts s's reader on the participant's waitset; the pump then
// takes its samples.
func (p *Participant) attach(s *Subscription) error {
	p.pump.mu.Lock()
	defer p.pump.mu.Unlock()
	id := p.pump.next
	rc, err := p.ws.attach(s.rd, id)
	if err != nil {
		return err
	}
	p.pump.next++
	s.id, s.rc = id, rc
	p.pump.subs[id] = s
	return nil
}

// detach takes s's reader off the waitset, once the pump is not serving it.
func (p *Participant) detach(s *Subscription) {
	p.pump.mu.Lock()
	defer p.pump.mu.Unlock()
	p.detachLocked(s)
}

func (p *Participant) detachLocked(s *Subscription) {
	if s.rc == 0 {
		return // detached already
	}
	delete(p.pump.subs, s.id)
	p.ws.detach(s.rc)
	s.rc = 0
}

// run is the pump's goroutine: until Close, it waits, then takes from
// the triggered readers (a batch each: what is left keeps its condition
// triggered). Handler calls and queue deliveries of every subscription
// happen here, one at a time.
func (p *Participant) run(rd, drd C.dds_entity_t) {
	defer p.wg.Done()
	g := newGraphBatch()
	cbatch := (*C.edged_sample)(C.calloc(batchSize, C.sizeof_edged_sample))
	if cbatch == nil {
		p.log.Error("dds: out of memory; no topic of this participant will deliver")
		return
	}
	defer C.free(unsafe.Pointer(cbatch))
	batch := unsafe.Slice(cbatch, batchSize)
	xs := make([]C.dds_attach_t, minTriggered) // no Go pointers inside: may go to C
	var y yield.Yielder
	p.takeGraph(rd, drd, g) // what arrived before the first wait
	for p.ctx.Err() == nil {
		n := p.ws.wait(xs)
		if n < 0 {
			p.log.Error("dds: waiting on the participant's waitset failed; its topics stop delivering", "err", ddsError("wait", C.dds_return_t(n)))
			return
		}
		graph, queued := false, false
		for _, id := range xs[:min(n, len(xs))] {
			switch {
			case id == idPublications || id == idDiscovery:
				graph = true
			case id >= firstSubID:
				queued = p.serve(id, batch) || queued
			}
		}
		if graph {
			p.takeGraph(rd, drd, g)
		}
		if n > len(xs) {
			xs = make([]C.dds_attach_t, n)
		}
		if queued {
			// Let the consumers just readied run on this thread before it
			// blocks in C: a goroutine left in the queue of a P held by a
			// cgo call is taken back by sysmon and handed to another
			// thread woken for it. (A Handler needs no such yield.)
			runtime.Gosched()
			y.Yielded()
		} else {
			y.Maybe() // waiting in C message after message: internal/yield
		}
	}
}

// serve takes one batch of subscription id's samples, if it is still
// attached; it reports whether it queued any (rather than handing them).
func (p *Participant) serve(id C.dds_attach_t, batch []C.edged_sample) (queued bool) {
	p.pump.mu.Lock()
	defer p.pump.mu.Unlock()
	s := p.pump.subs[id]
	if s == nil {
		return false // detached since the wait returned
	}
	if h := takeHook.Load(); h != nil {
		(*h)() // tests: hold the pump back
	}
	n := C.edged_take(s.rd, &batch[0], C.int(len(batch)))
	if n < 0 {
		// the reader is broken: serving it again would spin
		p.detachLocked(s)
		s.p.log.Error("dds: take failed; the topic stays silent", "topic", s.opts.Topic, "err", ddsError("take", C.dds_return_t(n)))
		return false
	}
	s.checkWriters()
	now := time.Now()
	for i := range int(n) {
		s.accept(&batch[i], now)
	}
	return n > 0 && s.opts.Handler == nil
}
