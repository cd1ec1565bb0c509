//go:build cgo && !purego

package dds

/*
#include <stdlib.h>
#include "edged_dds.h"

// The reader's history is KEEP_ALL without resource limits. KEEP_LAST
// overwrote the oldest sample whenever edged's pump fell behind
// a reliable burst, and Cyclone counts that nowhere (most frames of a
// fast reliable camera were lost silently); a bounded KEEP_ALL history
// refuses samples when full and Cyclone 0.10 then stalls the stream
// (refused samples are not delivered again after the reader takes). The
// pump never blocks on a queue: it moves every sample at once into
// edged's bounded queue, where a drop is counted (or to a Handler, which
// must be quick), so what Cyclone holds is what arrived while the pump
// was busy or not scheduled. A
// transient-local reader keeps KEEP_LAST depth: on joining it wants the
// last depth samples of a latched topic, which is never a fast stream.
static dds_qos_t *edged_reader_qos(int reliable, int transient_local, int depth) {
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_SECS(1));
	dds_qset_durability(q, transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
	if (transient_local)
		dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
	else
		dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	return q;
}

// Creates the topic (with a fresh edged_sertype) and a reader on it;
// returns the reader or a negative code. *stp is the sertype in use.
static dds_entity_t edged_reader(dds_entity_t pp, const char *topic, const char *type, uint32_t max_bytes,
		int reliable, int transient_local, int depth, dds_entity_t *tp, edged_sertype **stp) {
	*tp = edged_topic(pp, topic, type, max_bytes, stp);
	if (*tp < 0)
		return *tp;
	dds_qos_t *q = edged_reader_qos(reliable, transient_local, depth);
	dds_entity_t rd = dds_create_reader(pp, *tp, q, NULL);
	dds_delete_qos(q);
	if (rd < 0)
		dds_delete(*tp);
	return rd;
}
*/
import "C"

import (
	"fmt"
	"slices"
	"unsafe"

	"github.com/edged-robotics/edged/ros"
)

// Reader history: KEEP_ALL (transient-local: KEEP_LAST Depth), so
// Cyclone never overwrites a sample the pump has not taken yet; the
// pump never blocks on a queue, so loss happens only in the
// bounded queue below, counted. A reliable writer that keeps only its
// last N samples may still skip samples a slow network has not
// acknowledged: that is the publisher's QoS.

// open resolves the type and QoS (waiting for a publisher when either is
// automatic) and creates the topic, reader and waitset. Only writers of
// a type the subscription reads count: the type and QoS come from them,
// and the others are warned about (noteMismatched).
func (s *Subscription) open() error {
	typ, qos := s.opts.Type, s.opts.QoS
	if typ == "" || qos.Auto() {
		pubs, err := s.p.graph.wait(s.ctx, func(pubs []Publication) bool {
			on := onTopic(pubs, s.opts.Topic)
			s.noteMismatched(on)
			return slices.ContainsFunc(on, s.reads)
		})
		if err != nil {
			return err
		}
		pubs = slices.DeleteFunc(onTopic(pubs, s.opts.Topic), func(p Publication) bool { return !s.reads(p) })
		if typ == "" {
			typ = pubs[0].Type
		}
		var pq []QoS
		for _, p := range pubs {
			pq = append(pq, p.QoS)
		}
		qos = qos.Resolve(pq)
	}
	qos = qos.Resolve(nil)
	ddsType, ok := DDSType(typ)
	if !ok {
		return fmt.Errorf("dds: topic %s: type %q is not a ROS 2 type", s.opts.Topic, typ)
	}
	return s.create(typ, ddsType, qos)
}

// create makes the topic and the reader with qos, under s.mu, unless
// Close came first.
func (s *Subscription) create(typ, ddsType string, qos QoS) error {
	ctopic, ctype := C.CString(s.opts.ddsTopic()), C.CString(ddsType)
	defer C.free(unsafe.Pointer(ctopic))
	defer C.free(unsafe.Pointer(ctype))
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ctx.Err() != nil {
		return s.ctx.Err()
	}
	var tp C.dds_entity_t
	var st *C.edged_sertype
	rd := C.edged_reader(s.p.pp, ctopic, ctype, C.uint32_t(s.opts.MaxMessageBytes), cbool(qos.Reliability == Reliable),
		cbool(qos.Durability == TransientLocal), C.int(qos.Depth), &tp, &st)
	if rd < 0 {
		return fmt.Errorf("%w (topic %s, type %s: another participant of this process may use the topic with another type)",
			ddsError("create reader", C.dds_return_t(rd)), s.opts.Topic, typ)
	}
	s.rd, s.tp, s.sertype, s.qos = rd, tp, st, qos
	s.info = &ros.PublisherInfo{Type: typ, Encoding: ros.EncodingCDR}
	s.readType = ddsType
	s.p.log.Debug("dds: reader created", "topic", s.opts.Topic, "type", typ, "qos", qos.String())
	return nil
}

// closeReader deletes the reader and the topic; Stats reads them no
// more (its sertype goes with the topic).
func (s *Subscription) closeReader() {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() { s.rd, s.tp, s.sertype = 0, 0, nil }()
	C.dds_delete(s.rd)
	C.dds_delete(s.tp)
}
