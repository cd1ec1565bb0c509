//go:build cgo && !purego

package dds

/*
#include "edged_dds.h"
*/
import "C"

import (
	"sync"
	"time"
	"unsafe"

	"github.com/edged-robotics/edged/ros"
)

// writerInfo is one writer's PublisherInfo, valid while the graph's
// generation is gen.
type writerInfo struct {
	info *ros.PublisherInfo
	gen  uint64
}

// maxWriters caps a subscription's writer cache (cleared when full).
const maxWriters = 1024

// sample is a pooled Message with the serdata behind its Data. The
// Message is the first field, so the release function gets back to the
// sample from the *ros.Message it is handed.
type sample struct {
	m        ros.Message
	sd       *C.edged_serdata
	reserved int
}

var samplePool = sync.Pool{New: func() any { return new(sample) }}

// accept turns a taken sample into a Message and queues it, or drops it
// when it does not fit the byte budget.
func (s *Subscription) accept(c *C.edged_sample, now time.Time) {
	n := int(c.size)
	s.bytes.Add(uint64(n))
	if !s.queue.Reserve(n) {
		C.edged_unref(c.sd)
		s.queue.Drop("byte budget")
		return
	}
	sm := samplePool.Get().(*sample)
	sm.sd, sm.reserved = c.sd, n
	sm.m = ros.Message{Topic: s.opts.Topic, Publisher: s.publisher(uint64(c.writer)), Data: unsafe.Slice((*byte)(unsafe.Pointer(c.data)), n), Received: now}
	sm.m.SetRelease(s.releaseFn)
	if h := s.opts.Handler; h != nil {
		s.queue.Handed()
		h(&sm.m)
		return
	}
	s.queue.Deliver(&sm.m)
}

// publisher returns the PublisherInfo of the writer with publication
// handle h, shared by its samples: CallerID is its node's name once
// ros_discovery_info and DCPSPublication have told it. The name is
// looked up again after any graph change; a new PublisherInfo is made
// only when it differs, so steady state costs one atomic load per sample
// and allocates nothing. The pump only.
func (s *Subscription) publisher(h uint64) *ros.PublisherInfo {
	gen := s.p.graph.gen.Load()
	if h == s.lastWriter && s.lastInfo.gen == gen && s.lastInfo.info != nil {
		return s.lastInfo.info
	}
	w, ok := s.writers[h]
	if !ok || w.gen != gen {
		name := s.p.graph.nodeOf(h)
		if !ok || w.info.CallerID != name {
			w.info = s.info
			if name != "" {
				w.info = &ros.PublisherInfo{CallerID: name, Type: s.info.Type, Encoding: s.info.Encoding}
			}
		}
		w.gen = gen
		if s.writers == nil || len(s.writers) >= maxWriters {
			s.writers = map[uint64]writerInfo{}
		}
		s.writers[h] = w
	}
	s.lastWriter, s.lastInfo = h, w
	return w.info
}

// release gives a delivered sample's serdata back to Cyclone.
func (s *Subscription) release(m *ros.Message) {
	sm := (*sample)(unsafe.Pointer(m))
	C.edged_unref(sm.sd)
	s.queue.Unreserve(sm.reserved)
	*sm = sample{}
	samplePool.Put(sm)
}

// sampleBufferStats reports how many large-sample buffers (bufpool.c)
// were allocated fresh and how many were reused.
func sampleBufferStats() (fresh, reused uint64) {
	var f, r C.uint64_t
	C.edged_buf_stats(&f, &r)
	return uint64(f), uint64(r)
}
