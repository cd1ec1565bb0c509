// Package uplink moves bytes from the robot to the cloud: each message
// (a wire body made by the pipeline's shipping stage, package ship) is
// wrapped in a msgp envelope (uplink/wire), written to the durable
// outbox on disk (uplink/outbox), and published over MQTT 3.1.1 with
// QoS 1 by uplink/publish. A message is removed from the outbox once the
// broker acknowledged it, but for one of an episode (Message.Keep, with
// acknowledgements listened to: Options.OnUploaded), which is kept until
// the receiver acknowledges the episode complete, so that what a broker
// took and lost is sent again (repair.go: the receiver's repair requests,
// and the end manifest sent again after Config.ResendAfter).
// The reference receiver (`edged sink`) is package sink.
//
// Layering: uplink imports no domain package (no episode, sheet,
// capture, config): its edged dependencies are uplink/wire,
// uplink/outbox, uplink/publish, uplink/mqttconn and internal/fsutil
// (TestImportsNoDomainPackage). Episode rules come in through
// Options.CheckEpisode; package pipeline maps the config file onto
// Config.
//
// Who calls what: the pipeline creates one Uplink with New, wraps it in a
// ship.Shipper that calls Enqueue as things happen (from any
// goroutine), reads Stats and Awaiting for /metrics and the status page,
// and calls Close at shutdown after the producers stopped.
//
// Goroutines: the publisher's (uplink/publish); with OnUploaded, the
// acknowledgement listener's (acks.go: it calls OnUploaded and OnRepair)
// and the repairer's (repair.go: it sends unacknowledged ends again).
// Close stops and waits for each.
//
// Blocking: Enqueue encodes the envelopes and waits for the outbox's
// group-commit fsync (typically a few milliseconds), never for the
// network. With Config.Broker empty, messages wait in the outbox.
//
// Clock: Config.Now (default time.Now) dates the envelopes, the
// outbox's ages and the status, and bounds Flush, so a replay can
// inject its own.
//
// Ownership: the arguments are not retained; a body is copied into the
// outbox before Enqueue returns.
package uplink
