// Command fleet plays N simulated robots against an MQTT broker and K
// `edged sink` processes of one group ($share/), then checks that every
// episode arrived complete exactly once (`make fleet-bench`, see
// docs/fleet.md for the figures and how they extrapolate).
//
// A robot is one MQTT client (its own robot id and client id, QoS 1,
// persistent session) that records one episode of -episode seconds,
// starting at a random offset: an episode_start manifest, per camera a
// contact sheet (40-90 KB, chunked above -max-payload) and its state
// snippet every 10 s, a segment every 15 s, and an episode_end manifest
// that announces what it produced; -reconnect of the robots drop their
// connection once mid-episode, come back and publish their last message
// again (a duplicate the sinks must drop). Each robot listens on its ack
// topic: the time from its episode_end to the ack is the arrival
// latency.
//
// The figures: messages/s and bytes/s over the run, CPU seconds of each
// sink process (from /proc), p50/p99 arrival latency, episodes lost (not
// complete at the end: never acknowledged or incomplete on disk, bytes
// compared), duplicated (acknowledged more than once) and corrupt.
//
// Unless -broker is given it starts mosquitto on a free port; the sinks
// are the edged binary (-edged) writing one shared -out directory, each
// with Go's default GOMAXPROCS, or -sink-cores (1: the "each sink has a
// core" of the scaling aim, on a machine whose cores the robots share).
//
// -profile DIR has each sink write its CPU profile (edged sink
// --cpuprofile) to DIR/sink-N.pprof: where a sink's time goes (on a
// local disk, mostly the kernel's file system work: fsync, creating
// files).
//
// -tls runs the fleet as it is deployed (docs/deploy.md, option A): a
// CA made for the run (internal/pki), a client certificate per robot
// whose CN is its robot id, one for the sinks' account (edged-sink), and
// a broker that requires a certificate, takes its CN as the username and
// applies -acl (default systemd/mosquitto-edged.acl, the one deployed).
// Each robot then pays a TLS handshake per connection, the broker
// encrypts and checks the ACL on every message, and a robot that the
// ACL refused would show as lost.
//
// -sink-cpu F puts each sink in a CPU cgroup of its own held to F cores
// (a CFS quota; root, cgroup v1 or v2): every sink then has a share of
// the machine that is its own and the same size, with the broker and
// the robots on the rest. Driven past what the quotas allow, messages/s
// is what the group sustains, so 1 and 2 sinks compare as the scaling
// aim asks on a machine without a core for each sink.
package main
