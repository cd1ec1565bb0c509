//go:build cgo && !purego

package dds

/*
#include <stdlib.h>
#include "edged_dds.h"

static dds_entity_t edged_writer(dds_entity_t pp, const char *topic, const char *type,
		int reliable, int transient_local, int depth, dds_entity_t *tp) {
	edged_sertype *st;
	*tp = edged_topic(pp, topic, type, 0xffffffffu, &st);
	if (*tp < 0)
		return *tp;
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT, DDS_SECS(1));
	dds_qset_durability(q, transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
	if (transient_local) // late joiners get the history depth, as in ROS 2
		dds_qset_durability_service(q, 0, DDS_HISTORY_KEEP_LAST, depth, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
	dds_entity_t wr = dds_create_writer(pp, *tp, q, NULL);
	dds_delete_qos(q);
	if (wr < 0)
		dds_delete(*tp);
	return wr;
}

static int edged_write(dds_entity_t wr, const unsigned char *data, uint32_t size) {
	edged_raw raw = {data, size};
	return dds_write(wr, &raw);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Writer publishes serialized samples on a ROS 2 topic: the replies of
// edged's ~snapshot service, and tests and tools (a ROS 2 publisher
// without generated code). Not safe for concurrent use.
type Writer struct {
	wr, tp C.dds_entity_t
}

// NewWriter creates a writer of ROS 2 type typ on topic with qos (its
// automatic fields resolve to reliable, volatile, depth 10).
func (p *Participant) NewWriter(topic, typ string, qos QoS) (*Writer, error) {
	return p.NewWriterOn(DDSTopic(topic), typ, qos)
}

// NewWriterOn is NewWriter on a DDS topic named as is (a service's
// request or reply topic, ServiceTopics).
func (p *Participant) NewWriterOn(ddsTopic, typ string, qos QoS) (*Writer, error) {
	ddsType, ok := DDSType(typ)
	if !ok {
		return nil, fmt.Errorf("dds: type %q: want pkg/msg/Type", typ)
	}
	if qos.Reliability == ReliabilityAuto {
		qos.Reliability = Reliable
	}
	qos = qos.Resolve(nil)
	ctopic, ctype := C.CString(ddsTopic), C.CString(ddsType)
	defer C.free(unsafe.Pointer(ctopic))
	defer C.free(unsafe.Pointer(ctype))
	var tp C.dds_entity_t
	wr := C.edged_writer(p.pp, ctopic, ctype, cbool(qos.Reliability == Reliable), cbool(qos.Durability == TransientLocal),
		C.int(qos.Depth), &tp)
	if wr < 0 {
		return nil, ddsError("create writer", C.dds_return_t(wr))
	}
	return &Writer{wr: wr, tp: tp}, nil
}

// Write publishes one serialized sample (encapsulation header included).
func (w *Writer) Write(data []byte) error {
	if len(data) < 4 {
		return fmt.Errorf("dds: write: a sample needs its 4-byte encapsulation header, got %d bytes", len(data))
	}
	if rc := C.edged_write(w.wr, (*C.uchar)(unsafe.Pointer(&data[0])), C.uint32_t(len(data))); rc < 0 {
		return ddsError("write", C.dds_return_t(rc))
	}
	return nil
}

// Matched returns how many readers the writer is matched with now.
func (w *Writer) Matched() int {
	var st C.dds_publication_matched_status_t
	if C.dds_get_publication_matched_status(w.wr, &st) < 0 {
		return 0
	}
	return int(st.current_count)
}

// Close deletes the writer (its readers see it go).
func (w *Writer) Close() error {
	C.dds_delete(w.wr)
	C.dds_delete(w.tp)
	return nil
}
