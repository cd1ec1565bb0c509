// Package sink is the reference receiver of the uplink (`edged sink`):
// it subscribes to PREFIX/+/+ (or $share/GROUP/PREFIX/+/+), validates
// every envelope, drops duplicates by id (also across restarts: a
// persistent id log), reassembles chunks under caps and a timeout, and
// hands each whole message to receive.Receiver, which writes it in the
// robot's own on-disk format. OUT is laid out like a robot's data_dir,
// so every edged command (inspect, score, export, report) works on it:
//
//	OUT/episodes/EPISODE/            one episode of any robot, exactly as
//	                                 in a robot's DATA_DIR/episodes (see
//	                                 episode/layout.go): manifest.json,
//	                                 segments.rec, sheets/, labels/,
//	                                 snippets/; the manifest also says what
//	                                 is held and whether it is complete
//	OUT/robots/ROBOT/status.json     the robot's latest retained status
//	OUT/.sink/ids.log                the sink's own state (dedupe; with a
//	                                 Group OUT/.sink/CLIENTID/, or --state)
//	OUT/.sink/chunks/, .sink/done/   chunks staged for any sink of the
//	                                 group to assemble (stage.go)
//	OUT/.sink/acks/SINK/ROBOT/EPISODE acknowledgements not yet published
//	OUT/.sink/alive/SINK             and which sinks run (acks.go)
//
// OUT is a directory or an object store (Config.Store, blob.Blobs;
// blob/s3 for s3://). Sinks of one Group share the load through
// $share/GROUP/ and one OUT: each has its own client id and state, the
// receiver's writes of shared files are conditional (receive.Receiver),
// and a message's chunks may arrive at different sinks (stage.go), so
// any sink may get any message and several sinks never lose or
// duplicate an episode (docs/fleet.md).
//
// The sink moves bytes; the layout is episode's. An episode id must
// belong to the robot that sends it (episode.CheckID), so robots cannot
// collide with each other or with the sink's files.
//
// Every file is written atomically (temp file, fsync, rename, fsync of
// the directory; segments are appended and fsynced) before the message's
// id is logged, and the MQTT message is acknowledged (paho manual
// acknowledgement) only after both: a message whose write failed, or
// that a cap on incomplete messages refuses, is left unacknowledged and
// the session restarts so the broker redelivers it (Handle returns an
// error wrapping ErrRetry).
//
// When a message makes an episode complete the sink publishes a
// wire.Ack on PREFIX/ROBOT/ack/uploaded, recorded in the store first so
// another sink publishes it if this one crashes (acks.go); an ended
// episode not complete is asked for what it lacks (repair.go).
//
// Hostile publishers (handle.go): a topic's robot must be the
// envelope's, nothing held is replaced by other content (Conflicts),
// and incomplete messages are capped per robot as well as in all.
//
// Concurrency: Run owns the connection loop and returns when its
// context ends. It hands each message to one of Config.Lanes lanes by
// its robot (lanes.go): a robot's messages are handled one at a time in
// the order they arrived, different robots' at once, so one sink
// overlaps the store's latency (a directory's fsyncs, an object store's
// requests); each lane acknowledges its own messages. Handle may be
// called from any goroutine; calls for one robot are serialized.
//
// Serve (serve.go) is `edged sink` around a Sink: the password file,
// the CPU profile, /metrics, /healthz and a View, and Run until a
// signal; errors name the command's flags (FlagKeys).
package sink
