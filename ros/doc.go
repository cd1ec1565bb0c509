// Package ros is edged's ROS1 node in pure Go: it registers with the
// master, serves the slave API, and subscribes to any topic over TCPROS
// (md5sum "*"), delivering raw serialized messages with the publisher's
// type, md5sum and message definition. Decoding is package ros/msg's job.
//
// Sub-packages: xmlrpc (codec, client, server), master (master and slave
// API clients), tcpros (headers, handshake, pooled frames), rostest
// (real-component test helpers; tests only).
//
// Contract:
//   - NewNode starts the slave API and a master watcher. The master need
//     not be up: the watcher polls getPid every MasterPollInterval and
//     registers every subscription (and parameter watch) when the master
//     appears and again when it restarts (a changed pid or a failure then
//     success). Every ResolveInterval subscriptions are registered again,
//     which re-resolves their publishers even if a publisherUpdate was
//     lost.
//   - Subscribe returns a Subscription with one goroutine per publisher.
//     Each keeps one TCPROS connection and reconnects with exponential
//     backoff (ReconnectMin..ReconnectMax) while the master lists that
//     publisher. A bad header or a frame over MaxMessageBytes closes the
//     connection and counts an error; nothing read from the wire is
//     allocated before it is checked against a cap.
//   - Messages() is a bounded queue (QueueSize). The socket reader never
//     blocks on it: when it is full the oldest message is dropped,
//     released and counted in Stats().Drops.
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
