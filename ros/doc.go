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
//   - Advertise publishes a topic over TCPROS, each subscriber with its
//     own bounded queue and writer: Publish never blocks, a slow
//     subscriber loses its oldest messages (publication.go).
//     AdvertiseService serves a service on the same server (service.go).
//   - NewNode starts the slave API and a master watcher: the master
//     need not be up; subscriptions are registered when it appears and
//     again when it restarts (node.go).
//   - Subscribe: one goroutine per publisher (at most MaxPublishers),
//     each one TCPROS connection reconnected with backoff while the
//     master lists it; read deadlines so a stalled publisher pins
//     little (conn.go). Nothing read from the wire is allocated before
//     it is checked against a cap.
//   - Memory: a Subscription holds at most QueueBytes of message bytes
//     whatever its publishers do, plus ~1.1 MiB per connection
//     (queue.go).
//   - Messages() is a bounded queue (QueueSize messages, and QueueBytes
//     as above). The socket reader never blocks on it: when it is full
//     the oldest message is dropped, released and counted in
//     Stats().Drops (logged, rate limited). With SubscribeOptions.Handler
//     the reader hands each message to it instead, on its own goroutine
//     (no hand-off per message; capture's path), under the same budget.
//   - Read deadlines are left armed across frames (bodyDeadline), not
//     set and cleared per frame: no timer operation per message.
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
