// Package pipeline is the stages of DESIGN.md between capture and the
// broker, wired as one value built from the config: rings (one per
// camera) -> sheet -> fsm -> episode store -> ship -> uplink. edged run
// (package daemon) and edged replay (package replay) each build their
// own; neither knows the other, and nothing here knows where capture's
// messages come from.
//
//	capture -> frameRouter -> ringbuf (per camera) -> Runner: sheet sessions -> store dir, ship
//	        -> jointSink (snippets: ship's Recorder)
//	        -> fsm.Machine -> episode.Store; events -> Runner (status, verdicts, ship)
//	ship -> uplink (outbox, MQTT), or nothing (a replay without a broker)
//	rings, joints, fsm events, Runner ticks -> clip.Stage (clips.enabled: clips.go)
//	clip written, or uploaded (ClipUploaded, the uploader's hook) -> ship: its announcement (clipship.go)
//
// It owns the mapping of the config onto each stage's Config (fsm, ring,
// capture, uplink, sheet recipe: config imports no stage and no stage
// imports config) and Check, the one gate a config passes before run or
// replay uses it; topic resolution (ResolveTopics); the topology
// (cameras with their rings, joints; discovery's caps, the camera
// directories); the sheet sessions of each episode or session; the
// trace checks judged at each episode's end; crash-recovered episodes
// shipped; the status the page shows and the counts /metrics exports.
//
// Episodes come from the fsm stage: when one begins, a sheet.Builder per
// camera starts on its tick grid (the camera's builder of the last
// episode, Reset, so its buffers are reused), each closed segment gets a
// labeling sheet once its last tick is final, and the end finishes the
// builders and ships the manifest with its verdicts. Without an FSM, sessions
// (episodes named "session", cut at episode.max_duration) hold the
// sheets, so that the store's retention bounds them (session.go).
//
// Lifecycle (the caller's goroutine owns these calls): New prepares (no
// I/O but the files the config names); Open opens the sinks (data_dir,
// the store, recovering, the uplink); StartFSM starts the fsm stage;
// StartSheetLoop starts the live driver of the sheets (its own
// goroutine, ticking every interval/5 of the stream clock), or a replay
// drives a Runner itself (NewRunner: Tick, AdvanceFSM, FlushFSM, Drain,
// Stop) on the recording's clock; then the caller starts capture over
// CaptureSetup (sinks before sources). To stop, the caller closes capture
// first, then Stop: the fsm stage (the open episode ends interrupted),
// the sheet loop (drained, sheets finished), the rings, the uplink
// (flushed a while); Close closes the store last (and whatever an early
// return left running).
//
// Concurrency: the fsm stage reports episodes to the sheet driver through
// a bounded channel (observer); frame and joint sinks run on capture's
// goroutines and never block; Stats, Status, Checks, Topology and
// Progressing may be read from any goroutine (the status page, the
// watchdog). A Topology is replaced whole (UseTopology), never mutated.
// Frames are copied into their ring and released; a ring's frames are
// the ring's until sheets have read them. Log lines keep the "daemon:"
// prefix operators know.
package pipeline
