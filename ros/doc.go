// Package ros is edged's ROS1 node in pure Go: it registers with the
// master, serves the slave API, and subscribes to any topic over TCPROS
// (md5sum "*"), delivering raw serialized messages with the publisher's
// type, md5sum and message definition. Decoding is package ros/msg's job.
//
// Sub-packages: xmlrpc (codec, client, server), master (master and slave
// API clients), tcpros (headers, handshake, pooled frames), rosout (the
// log as rosgraph_msgs/Log), rostest (real-component test helpers; tests
// only).
//
// Contract:
//   - Names are resolved as roscpp resolves them (names.go): global
//     names stand, relative ones go into Config.Namespace ($ROS_NAMESPACE,
//     or __ns:=), private ones (~x) under the node's name, then
//     Config.Remaps apply. SplitArgs takes roscpp's command-line
//     arguments (__name, __ns, __log, __ip, __hostname, __master,
//     _param:=value, from:=to) out of a command line; Args.Apply lays them
//     over a Config. CheckName is the one syntax rule for a name as a
//     user writes it. The advertised host is ROS_HOSTNAME, else ROS_IP.
//   - A good citizen: a shutdown call on the slave API (rosnode kill, or
//     the master because a newer node registered the same name) closes
//     Shutdown() with ShutdownReason(); the node then never registers
//     again, and before each periodic re-registration it asks the master
//     who owns its name (lookupNode), so it never takes a name back from
//     a newer node. The owner closes the node and exits, as roscpp and
//     rospy nodes do. getPid answers with its pid.
//   - Advertise publishes a topic over TCPROS: it registers with the
//     master (again after a restart), answers requestTopic with the
//     node's TCPROS server, checks each subscriber's md5sum, and gives
//     every subscriber its own bounded queue and writer goroutine:
//     Publish copies the message and never blocks; a slow subscriber
//     loses its oldest messages (counted in PublicationStats.Drops). At
//     most MaxSubscribers per topic and 32 handshakes under way at once,
//     each under CallTimeout with its header capped at MaxHeaderBytes.
//   - AdvertiseService provides a service on the same TCPROS server
//     (registered as rosrpc://HOST:PORT): each request frame is capped at
//     MaxHeaderBytes and read under CallTimeout; the handler's answer or
//     error goes back as TCPROS's ok byte and frame. ServeLogLevel uses
//     it for roscpp's ~get_loggers and ~set_logger_level over a
//     slog.LevelVar.
//   - NewNode starts the slave API and a master watcher. The master need
//     not be up: the watcher polls getPid every MasterPollInterval and
//     registers every subscription (and parameter watch) when the master
//     appears and again when it restarts (a changed pid or a failure then
//     success). Every ResolveInterval subscriptions are registered again,
//     which re-resolves their publishers even if a publisherUpdate was
//     lost.
//   - Subscribe returns a Subscription with one goroutine per publisher,
//     at most MaxPublishers (default 16; further URIs, duplicates and
//     URIs that are not http://host:port are ignored and counted in
//     RefusedPublishers). Each keeps one TCPROS connection and
//     reconnects with exponential backoff (ReconnectMin..ReconnectMax;
//     up to UnreachableMax for a publisher that never answered) while
//     the master lists that publisher. The backoff starts over only
//     after a session that lasted ReconnectMax, so a publisher failing
//     every frame is not hammered; repeated log lines are rate limited
//     (one per 30s with a count of the suppressed ones). A bad header or
//     a frame over MaxMessageBytes closes the connection and counts an
//     error; nothing read from the wire is allocated before it is
//     checked against a cap.
//   - Read deadlines: the handshake must finish within CallTimeout; a
//     frame body, once its length is read, within FrameTimeout +
//     size/MinFrameRate (64 MiB: 74s by default), else the connection is
//     closed and counted as an error. A publisher idle between frames is
//     never cut off. A body over tcpros.GrowStep (1 MiB) and over the
//     connection's last whole frame is read into buffers growing 4x at a
//     time, so a stalled publisher pins at most 4x what it sent, or the
//     size of a frame it sent whole (a camera's frames: one buffer).
//   - Memory: every Subscription holds at most QueueBytes (default
//     2 x MaxMessageBytes) of message bytes, whatever its publishers do:
//     frames being read, queued and delivered but not yet released are
//     all charged before their buffer is taken. A frame that does not
//     fit drops the oldest queued message; if it still does not fit it
//     is read and discarded. Besides that, per publisher connection: a
//     64 KiB read buffer, its connection header (<= MaxHeaderBytes,
//     default 1 MiB) and the kernel's socket buffer (<= 4 MiB). So one
//     topic costs at most QueueBytes + MaxPublishers x ~1.1 MiB of user
//     memory, however many peers flood, stall or lie. The buffer pool's
//     size classes add up to 25% over the bytes charged.
//   - Messages() is a bounded queue (QueueSize messages, and QueueBytes
//     as above). The socket reader never blocks on it: when it is full
//     the oldest message is dropped, released and counted in
//     Stats().Drops (logged, rate limited).
//   - Buffer ownership: a *Message and its Data belong to the receiver
//     until it calls Release, exactly once; buffers come from a pool, so
//     steady-state receiving allocates nothing per message. The
//     PublisherInfo is shared and read-only.
//   - Goroutines: the node owns the slave API server and the watcher; each
//     Subscription owns its publisher goroutines. Subscription.Close and
//     Node.Close cancel and wait for all of them, then close Messages().
//   - Node, Subscription and their methods are safe for concurrent use.
//     SubscribeParam callbacks run on the slave API's goroutines.
package ros
