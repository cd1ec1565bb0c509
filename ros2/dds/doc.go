// Package dds is edged's own thin cgo binding to Eclipse Cyclone DDS
// (cyclonedds-dev 0.10.x, the line ROS 2 Humble's rmw_cyclonedds_cpp
// uses): how edged joins a ROS 2 graph. It reads any ROS 2 topic without
// generated code and hands samples over still serialized (XCDR1, 4-byte
// encapsulation header included); decoding is package ros2/cdr's job.
//
// ROS 2 conventions: topic /a/b is DDS topic rt/a/b, type pkg/msg/T is
// pkg::msg::dds_::T_ (names.go); the domain is ROS_DOMAIN_ID (Config:
// 0..232). C side (serdata.c): a keyless sertype whose serdata keeps the
// bytes as received, one buffer per sample (those from 64 KiB to 32 MiB
// go back to a pool for the next sample, at most 32 MiB of them idle;
// one given back evicts idle ones of other sizes: bufpool.c); a sample
// over MaxMessageBytes is refused inside Cyclone before it is copied
// and counted (Stats().Errors).
//
// Contract:
//   - NewParticipant joins a domain (Config.CycloneConfig, e.g.
//     LoopbackConfig, else CYCLONEDDS_URI) and starts its pump, which
//     follows the DCPSPublication built-in topic:
//     Publications, WaitPublications and Topics give topics with ROS 2
//     names, types and each writer's QoS.
//   - Node names: writers are mapped to their node's full name from
//     ros_discovery_info (Publication.Node, PublisherInfo.CallerID; ""
//     before it is known or for non-ROS writers; discovery.go).
//   - Subscribe returns at once; the subscription's goroutine waits for
//     a publisher of one of SubscribeOptions.Types, adopts its QoS when
//     the QoS is automatic (QoS.Resolve; profiles ProfileDefault,
//     ProfileSensorData, ProfileLatched), then attaches the reader to
//     the participant's pump, which takes its samples in batches
//     (pump_cgo.go). A reader has one type: writers of another are
//     warned about and counted (Mismatched, sub_writers_cgo.go).
//     Incompatible QoS is not matched, as in ROS 2, with a warning.
//   - NewParticipant returns ErrNoParticipantIndex when every automatic
//     participant index of the machine is taken (participant_cgo.go).
//   - Reader history KEEP_ALL (transient-local: KEEP_LAST Depth): loss
//     happens only in the bounded queue below, counted
//     (sub_reader_cgo.go).
//   - Messages() is a bounded queue of QueueSize messages and QueueBytes
//     bytes (queued plus delivered and not yet released): the reader
//     goroutine never blocks on it; when full the oldest message is
//     dropped, released and counted (Stats().Drops, with the samples
//     Cyclone reports lost), logged rate limited. With
//     SubscribeOptions.Handler the pump calls it for each message
//     instead (edged's capture: no hand-off between goroutines);
//     QueueBytes still bounds what is handed and not released.
//   - Buffer ownership: a *ros.Message's Data points into the serdata
//     (no copy); it belongs to the receiver until Release, exactly once,
//     which gives the serdata back to Cyclone. Messages are pooled:
//     steady-state receiving allocates nothing per message in Go.
//     PublisherInfo (Type, Encoding cdr, CallerID) is shared per writer
//     and read-only.
//   - Goroutines: the Participant owns the pump, its one goroutine
//     blocked in Cyclone (a waitset holding the graph's readers and
//     every subscription's): it takes, queues or calls each Handler, one
//     subscription at a time, and yields its thread every 4 ms
//     (internal/yield). A Handler therefore delays every topic and the
//     graph of its participant while it runs: it must be quick, and must
//     not close the participant or one of its subscriptions, nor wait
//     for the graph (WaitPublications, Subscribe's automatic type). Each Subscription owns a
//     goroutine that creates and attaches its reader, then watches for
//     silence (noteIncompatible); Close cancels it, it detaches the
//     reader (once the pump is not serving it), deletes the DDS entities
//     and closes Messages(); messages still held stay valid until
//     released. Participant.Close closes its subscriptions first. Every method is
//     safe for concurrent use, except Writer's.
//   - Writer publishes raw samples (the daemon's ~snapshot replies,
//     tests and tools). Services: ServiceTopics names a service's
//     rq/ and rr/ topics; SubscribeOptions.DDSTopic and NewWriterOn
//     read and write them (type and QoS given: the graph follows rt/
//     topics only); the request header is ros2/cdr's.
//
// Build tags: with cgo (the default) the package links -lddsc. With the
// tag purego, or without cgo, the same API returns ErrNotBuilt (naming
// make deps), as sheet/turbojpeg falls back; names, QoS and options are
// pure Go and tested in both builds.
package dds
