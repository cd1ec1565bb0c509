// Package uplink ships what edged produces to the cloud: every episode
// manifest, segment, state snippet and sheet becomes a msgp envelope
// (uplink/wire), is written to the durable outbox on disk
// (uplink/outbox), and is published over MQTT with QoS 1 by
// uplink/publish, removed from the outbox only once the broker
// acknowledged it. uplink/sink is the reference receiver (`edged sink`);
// uplink/snippet cuts the robot-state snippet of a sheet's window.
//
// Who calls what: the daemon creates one Uplink with New, calls
// EpisodeStarted, Segment, Sheet, LabelSheet and EpisodeEnded as things
// happen (from any goroutine), feeds joint samples and FSM transitions
// to Snippets() (non-blocking), reads Stats for /metrics, and calls Close
// at shutdown after the producers stopped.
//
// Blocking: each enqueue method encodes the message and waits for the
// outbox's group-commit fsync (typically a few milliseconds), never for
// the network. With Config.Broker empty, messages wait in the outbox.
//
// Ownership: the arguments are not retained; a Sheet's JPEG is copied
// into the outbox before the call returns.
package uplink
