//go:build cgo && !purego

package dds

/*
#include "edged_dds.h"

// edged_incompatible reports how many publishers offered a QoS the
// reader cannot match (no sample of theirs arrives) and the policy that
// failed last, as rclcpp's "offering incompatible QoS" warning does.
static uint32_t edged_incompatible(dds_entity_t rd, const char **policy) {
	dds_requested_incompatible_qos_status_t st;
	*policy = "";
	if (dds_get_requested_incompatible_qos_status(rd, &st) != 0)
		return 0;
	switch (st.last_policy_id) {
	case DDS_RELIABILITY_QOS_POLICY_ID: *policy = "reliability"; break;
	case DDS_DURABILITY_QOS_POLICY_ID: *policy = "durability"; break;
	case DDS_DEADLINE_QOS_POLICY_ID: *policy = "deadline"; break;
	case DDS_LIVELINESS_QOS_POLICY_ID: *policy = "liveliness"; break;
	case DDS_OWNERSHIP_QOS_POLICY_ID: *policy = "ownership"; break;
	case DDS_PRESENTATION_QOS_POLICY_ID: *policy = "presentation"; break;
	case DDS_DESTINATIONORDER_QOS_POLICY_ID: *policy = "destination order"; break;
	case DDS_PARTITION_QOS_POLICY_ID: *policy = "partition"; break;
	case DDS_DATA_REPRESENTATION_QOS_POLICY_ID: *policy = "data representation"; break;
	default: *policy = "other"; break;
	}
	return st.total_count;
}
*/
import "C"

import "strings"

// Types: a DDS reader has one type and matches only writers of it, so
// a writer of another type on the topic (a squatter that appears
// first, a non-ROS DDS program) decides nothing and sends nothing
// that arrives: the subscription warns once per such writer (rate
// limited) and counts it (Mismatched), before its reader exists and
// after (it looks again after every graph change).

// reads reports whether the subscription reads writer p: of its reader's
// type once created, else of a ROS 2 type SubscribeOptions accepts.
// The subscription's goroutine before attach, the pump after.
func (s *Subscription) reads(p Publication) bool {
	if s.readType != "" {
		return p.DDSType == s.readType
	}
	return p.Type != "" && s.opts.accepts(p.DDSType)
}

// noteMismatched warns once per writer on the topic whose type the
// subscription does not read (nothing it sends arrives: DDS matches
// readers and writers by type) and counts it (Mismatched), so that a
// writer squatting a topic with another type is visible rather than
// silent. The subscription's goroutine before attach, the pump after.
func (s *Subscription) noteMismatched(pubs []Publication) {
	for _, p := range pubs {
		if s.reads(p) {
			continue
		}
		if _, seen := s.mismatchSeen[p.GUID]; seen {
			continue
		}
		if s.mismatchSeen == nil || len(s.mismatchSeen) >= maxWriters {
			s.mismatchSeen = map[string]struct{}{}
		}
		s.mismatchSeen[p.GUID] = struct{}{}
		s.mismatched.Add(1)
		if ok, more := s.mismatchLog.Allow(); ok {
			writerType := p.Type
			if writerType == "" {
				writerType = p.DDSType + " (not a ROS 2 type)"
			}
			s.p.log.Warn("dds: a writer of another type on the topic is not read (its samples are ignored)",
				"topic", s.opts.Topic, "writer_type", writerType, "reads", s.wants(), "writer_node", p.Node,
				"writers_mismatched", s.mismatched.Load(), "suppressed_logs", more)
		}
	}
}

// wants names the type(s) the subscription reads, for its warnings.
func (s *Subscription) wants() string {
	if s.info != nil {
		return s.info.Type
	}
	if s.opts.Type != "" {
		return s.opts.Type
	}
	return strings.Join(s.opts.Types, " or ")
}

// checkWriters looks for writers of another type after a graph change
// (one atomic load when nothing changed). The pump only.
func (s *Subscription) checkWriters() {
	gen := s.p.graph.gen.Load()
	if gen == s.writersGen || s.opts.DDSTopic != "" { // the graph knows rt/ topics only
		return
	}
	s.writersGen = gen
	s.noteMismatched(onTopic(s.p.Publications(), s.opts.Topic))
}

// Mismatched counts the writers seen on the topic with a type the
// subscription does not read, each once.
func (s *Subscription) Mismatched() uint64 { return s.mismatched.Load() }

// noteIncompatible warns once per publisher whose QoS the reader cannot
// match (a reliable reader and a best-effort publisher, a
// transient-local reader and a volatile one): Cyclone does not connect
// them, so the topic stays silent, which only a log can explain. Called
// after a second without data (watchSilence), so a busy stream pays
// nothing.
func (s *Subscription) noteIncompatible() {
	var policy *C.char
	n := uint32(C.edged_incompatible(s.rd, &policy))
	if n <= s.incompatible {
		return
	}
	s.incompatible = n
	s.p.log.Warn("dds: a publisher offers a QoS incompatible with the reader's; nothing it sends is received "+
		"(set ros2.qos for the topic to auto, which adopts the publishers', or to their profile)",
		"topic", s.opts.Topic, "policy", C.GoString(policy), "reader_qos", s.qos.String(), "publishers_refused", n)
}
