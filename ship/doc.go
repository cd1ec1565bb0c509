// Package ship is the shipping stage on the robot's side: it turns what
// the pipeline produces (episode manifests, closed segments, contact and
// labeling sheets, and the state snippet of each contact sheet) into
// wire bodies (uplink/wire) and hands them to the uplink, which moves
// bytes only (outbox, MQTT, the receiver) and knows no domain package.
//
// What it owns:
//   - the mapping of sheet.Sheet to its wire form (SheetBody, the one
//     place it lives; bench/cost uses it too); manifests and segments
//     map both ways in episode (ManifestToWire, SegmentToWire), which
//     the receiver uses too;
//   - the joint-state Recorder and the sampling of joints at a sheet's
//     ticks (ForSheet): domain logic, so it lives here, not in uplink;
//   - each message's outbox priority (segments and manifests are never
//     evicted, snippets go before their sheet);
//   - the per-episode, per-camera counts of what was shipped, announced
//     in the end manifest so the receiver can tell it holds everything;
//   - incident clips' announcements (Clip: a clip written, or uploaded;
//     never the clip itself), not kept for the episode's acknowledgement;
//   - the rule that a message names an episode of this robot
//     (episode.CheckID), checked before anything is queued.
//
// A snippet is an observation, like the sheet it goes with: robot state
// only, never the FSM's states or transitions. Those are the ground truth
// a VLM's annotation is scored against; a prompt builder that hands
// snippets to the model must not leak them, so they travel apart, as
// segments.
//
// Who calls what: the pipeline creates one Shipper over its *uplink.Uplink
// with New, calls EpisodeStarted, Segment, Sheet, LabelSheet and
// EpisodeEnded as things happen (from any goroutine), and feeds joint
// samples to PutJoints from capture's goroutines (never blocks on I/O).
// The Shipper starts no goroutine; closing the uplink is the pipeline's.
//
// Blocking: each enqueue method encodes the message and waits for the
// outbox's group-commit fsync (uplink.Enqueue), never for the network.
//
// Ownership: the arguments are not retained; a Sheet's JPEG is copied
// into the outbox before the call returns. PutJoints keeps the sample's
// slices (capture hands them over). Sheet and LabelSheet encode a body
// in buffers the Shipper lends from sheet to sheet (uplink copies a body
// into the outbox before Enqueue returns), and ForSheet cuts a snippet
// in scratch the Recorder keeps, so a sheet's shipping allocates no
// large buffer in steady state.
package ship
