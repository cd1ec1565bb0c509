//go:build cgo && !purego

package dds

/*
#include <stdlib.h>
#include "edged_dds.h"

static uint32_t edged_refused(edged_sertype *st) { return ddsrt_atomic_ld32(&st->refused); }

// lost counts the samples Cyclone lost (sequence gaps) and those a
// history refused (none while it is unbounded: kept as a safety net).
static void edged_matched(dds_entity_t rd, uint32_t *current, uint32_t *total, uint32_t *lost) {
	dds_subscription_matched_status_t m;
	dds_sample_lost_status_t l;
	dds_sample_rejected_status_t r;
	*current = *total = *lost = 0;
	if (dds_get_subscription_matched_status(rd, &m) == 0) {
		*current = m.current_count;
		*total = m.total_count;
	}
	if (dds_get_sample_lost_status(rd, &l) == 0)
		*lost = l.total_count;
	if (dds_get_sample_rejected_status(rd, &r) == 0)
		*lost += r.total_count;
}

*/
import "C"

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/internal/loglimit"
	"github.com/edged-robotics/edged/ros"
)

// Subscribe returns at once; the subscription's goroutine waits for
// the type (Type "": the first publisher offering one of
// SubscribeOptions.Types, any ROS 2 type when Types is empty) and,
// for an automatic QoS (the zero QoS), for such a publisher, adopts
// the publishers' reliability and durability
// (QoS.Resolve: a best-effort camera gets best effort, a
// transient-local topic gets its history on joining), creates the
// reader and attaches it to the participant's pump, which takes its
// samples in batches into Messages() (or, with
// SubscribeOptions.Handler, hands each to it). Profiles: ProfileDefault,
// ProfileSensorData, ProfileLatched. Publishers that appear later with an incompatible
// QoS (or any, under a QoS override they cannot serve) are not
// matched, as in ROS 2: a warning names the policy, once per such
// publisher (a restart of edged re-resolves an automatic QoS).

// Subscription reads one ROS 2 topic. Its goroutine waits for the topic's
// type and publishers' QoS when they are automatic, creates the reader
// and attaches it to the participant's pump, which takes serialized
// samples into Messages() (or the Handler).
type Subscription struct {
	p     *Participant
	opts  SubscribeOptions
	queue *ros.Queue

	ctx       context.Context
	cancel    context.CancelFunc
	done      chan struct{}
	closeOnce sync.Once
	releaseFn func(*ros.Message)

	mu      sync.Mutex // guards the entities below (created by run, read by Stats)
	rd, tp  C.dds_entity_t
	sertype *C.edged_sertype
	qos     QoS
	info    *ros.PublisherInfo

	// on the participant's waitset (the pump's, under its mutex)
	id C.dds_attach_t
	rc C.dds_entity_t

	// writers caches each writer's PublisherInfo by publication handle
	// (the pump only)
	writers    map[uint64]writerInfo
	lastWriter uint64
	lastInfo   writerInfo

	bytes atomic.Uint64

	incompatible uint32 // publishers refused for their QoS, as last logged (the subscription's goroutine only)

	// writers of a type the subscription does not read (the pump only,
	// but mismatched; open's first look happens before attach)
	readType     string // the reader's DDS type once created
	mismatchSeen map[string]struct{}
	writersGen   uint64
	mismatched   atomic.Uint64
	mismatchLog  loglimit.Limiter
}

// takeHook, when set (tests only), runs before every take of a
// subscription's samples.
var takeHook atomic.Pointer[func()]

// Subscribe starts a subscription. It returns at once: the reader is
// created by the subscription's goroutine as soon as the type (and, for
// an automatic QoS, a publisher) is known.
func (p *Participant) Subscribe(ctx context.Context, opts SubscribeOptions) (*Subscription, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts = opts.withDefaults()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errClosed
	}
	s := &Subscription{p: p, opts: opts, queue: ros.NewQueue(opts.Topic, opts.QueueSize, opts.QueueBytes, p.log, "dds"), done: make(chan struct{})}
	s.ctx, s.cancel = context.WithCancel(p.ctx)
	s.releaseFn = s.release
	p.subs[s] = struct{}{}
	go s.run()
	return s, nil
}

// Topic is the subscription's ROS 2 topic name.
func (s *Subscription) Topic() string { return s.opts.Topic }

// Messages delivers received samples (serialized CDR, encapsulation
// header included); Release each one. Closed after Close.
func (s *Subscription) Messages() <-chan *ros.Message { return s.queue.C() }

// QoS returns the reader's QoS once created (ok false before).
func (s *Subscription) QoS() (QoS, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.qos, s.rd != 0
}

// Stats returns the subscription's counters. Publishers are the matched
// writers now, Connects all writers ever matched, Errors samples refused
// for their size or built short (serdata.c), Drops those dropped by
// edged's queue plus those Cyclone reports lost.
func (s *Subscription) Stats() ros.SubscriptionStats {
	st := ros.SubscriptionStats{Messages: s.queue.Messages(), Bytes: s.bytes.Load(), Drops: s.queue.Drops(), HeldBytes: s.queue.Held()}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rd == 0 {
		return st
	}
	var cur, total, lost C.uint32_t
	C.edged_matched(s.rd, &cur, &total, &lost)
	st.Publishers, st.Connects = int(cur), uint64(total)
	if total > cur {
		st.Reconnects = uint64(total - cur)
	}
	st.Drops += uint64(lost) // cumulative in Cyclone
	st.Errors = uint64(C.edged_refused(s.sertype))
	return st
}

// Close stops the goroutine, deletes the reader and closes Messages().
// Messages still queued or held stay valid until released.
func (s *Subscription) Close() error {
	s.closeOnce.Do(func() {
		s.cancel()
		<-s.done
		s.p.mu.Lock()
		delete(s.p.subs, s)
		s.p.mu.Unlock()
	})
	return nil
}

// run is the subscription's goroutine.
func (s *Subscription) run() {
	defer close(s.done)
	defer s.queue.Close()
	if err := s.open(); err != nil {
		if s.ctx.Err() == nil {
			s.p.log.Error("dds: cannot subscribe; the topic stays silent", "topic", s.opts.Topic, "err", err)
		}
		return
	}
	defer s.closeReader()
	if err := s.p.attach(s); err != nil {
		s.p.log.Error("dds: cannot subscribe; the topic stays silent", "topic", s.opts.Topic, "err", err)
		return
	}
	defer s.p.detach(s)
	s.watchSilence()
}

// watchSilence waits for Close; after a second in which the topic
// delivered nothing it asks Cyclone why (noteIncompatible), so a busy
// stream pays nothing.
func (s *Subscription) watchSilence() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	last := s.queue.Messages()
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-t.C:
			if m := s.queue.Messages(); m != last {
				last = m
				continue
			}
			s.noteIncompatible()
		}
	}
}
