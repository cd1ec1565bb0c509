// Package dds is edged's own thin cgo binding to Eclipse Cyclone DDS
// (cyclonedds-dev 0.10.x, the line ROS 2 Humble's rmw_cyclonedds_cpp
// uses): how edged joins a ROS 2 graph. It reads any ROS 2 topic without
// generated code and hands samples over still serialized (XCDR1, 4-byte
// encapsulation header included); decoding is package ros2/cdr's job.
//
// ROS 2 conventions: topic /a/b is DDS topic rt/a/b, type pkg/msg/T is
// pkg::msg::dds_::T_ (names.go); the domain is ROS_DOMAIN_ID (Config:
// 0..232). C side (serdata.c): a keyless sertype whose serdata keeps the
// bytes as received, one malloc per sample; a sample over
// MaxMessageBytes is refused inside Cyclone before it is copied and
// counted (Stats().Errors).
//
// Contract:
//   - NewParticipant joins a domain (Config.CycloneConfig, e.g.
//     LoopbackConfig, else CYCLONEDDS_URI) and starts the graph
//     goroutine, which follows the DCPSPublication built-in topic:
//     Publications, WaitPublications and Topics give topics with ROS 2
//     names, types and each writer's QoS.
//   - Node names (discovery.go): the participant also reads
//     ros_discovery_info, where every ROS 2 participant lists its nodes
//     and their writers' gids (24 bytes in Humble, 16 in Iron and later;
//     told apart by which layout parses), and maps each writer GUID to
//     its node's full name: Publication.Node, Topic.Nodes, and
//     PublisherInfo.CallerID of every sample, found from the sample's
//     publication handle (the writer's DCPSPublication instance). A
//     subscription caches one PublisherInfo per writer and looks the name
//     up again only after a graph change, so naming costs one atomic load
//     per sample. Samples that arrive before their node's name, and
//     writers of non-ROS DDS programs, have CallerID "". At most 1024
//     participants' names are kept.
//   - Subscribe returns at once; the subscription's goroutine waits for
//     the type (Type "": the first publisher offering one of
//     SubscribeOptions.Types, any ROS 2 type when Types is empty) and,
//     for an automatic QoS (the zero QoS), for such a publisher, adopts
//     the publishers' reliability and durability
//     (QoS.Resolve: a best-effort camera gets best effort, a
//     transient-local topic gets its history on joining), creates the
//     reader and a waitset, then takes batches of samples (one cgo call
//     per wake-up: take, or wait and take) and yields to the consumers
//     it readied before it blocks again. Profiles: ProfileDefault, ProfileSensorData,
//     ProfileLatched. Publishers that appear later with an incompatible
//     QoS (or any, under a QoS override they cannot serve) are not
//     matched, as in ROS 2: a warning names the policy, once per such
//     publisher (a restart of edged re-resolves an automatic QoS).
//   - Types: a DDS reader has one type and matches only writers of it, so
//     a writer of another type on the topic (a squatter that appears
//     first, a non-ROS DDS program) decides nothing and sends nothing
//     that arrives: the subscription warns once per such writer (rate
//     limited) and counts it (Mismatched), before its reader exists and
//     after (it looks again after every graph change).
//   - Participant indexes: with Cyclone's ParticipantIndex auto, each
//     process on a machine takes an index below
//     MaxAutoParticipantIndex; when all are taken NewParticipant returns
//     ErrNoParticipantIndex (Cyclone says so only in its log, which a
//     log sink watches while edged creates its domain and participant).
//   - Reader history: KEEP_ALL (transient-local: KEEP_LAST Depth), so
//     Cyclone never overwrites a sample the reader goroutine has not
//     taken yet; the goroutine never blocks, so loss happens only in the
//     bounded queue below, counted. A reliable writer that keeps only its
//     last N samples may still skip samples a slow network has not
//     acknowledged: that is the publisher's QoS.
//   - Messages() is a bounded queue of QueueSize messages and QueueBytes
//     bytes (queued plus delivered and not yet released): the reader
//     goroutine never blocks on it; when full the oldest message is
//     dropped, released and counted (Stats().Drops, with the samples
//     Cyclone reports lost), logged rate limited.
//   - Buffer ownership: a *ros.Message's Data points into the serdata
//     (no copy); it belongs to the receiver until Release, exactly once,
//     which gives the serdata back to Cyclone. Messages are pooled:
//     steady-state receiving allocates nothing per message in Go.
//     PublisherInfo (Type, Encoding cdr, CallerID) is shared per writer
//     and read-only.
//   - Goroutines: the Participant owns the graph goroutine; each
//     Subscription owns its reader goroutine. Close wakes it (the
//     waitset's trigger), waits for it, deletes the DDS entities and
//     closes Messages(); messages still held stay valid until released.
//     Participant.Close closes its subscriptions first. Every method is
//     safe for concurrent use, except Writer's.
//   - Writer publishes raw samples (tests and tools; edged only reads).
//
// Build tags: with cgo (the default) the package links -lddsc. With the
// tag purego, or without cgo, the same API returns ErrNotBuilt (naming
// make deps), as sheet/turbojpeg falls back; names, QoS and options are
// pure Go and tested in both builds.
package dds
