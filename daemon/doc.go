// Package daemon is `edged run`: it wires the stages of DESIGN.md into one
// process and owns their lifecycle.
//
//	ros.Node or dds.Participant -> capture -> ringbuf (one ring per camera) -> sheet -> disk
//	                                       -> fsm -> episode store
//	                                       -> joints (latest sample; snippets: ship's Recorder)
//	sheets, segments, manifests -> ship (wire bodies) -> uplink (bytes)
//
// The graph (ros2.go): ros.version 1 joins as a ROS1 node, handed to
// capture through capture.FromROS1 (which reads /use_sim_time from the
// master); ros.version 2 joins a DDS domain as a participant, handed to
// capture through ddsNode (a reader per topic of its role's types, with
// the topic's ros2.qos), and ros2.use_sim_time is capture's SimTime: ROS
// 2 has no parameter server and no master, so none is asked for and the
// status page names none.
//
// Episodes come from the fsm stage: when one begins, a sheet.Builder per
// camera starts on that episode's tick grid; each segment that closes gets
// a labeling sheet once its last tick is final; when the episode ends the
// builders finish (a shorter last sheet). Sheets are written under the
// episode's directory: DATA_DIR/episodes/ID/sheets/CAMERA/. With no FSM
// source configured, sessions run from the first clock reading to
// shutdown, each an episode of the store named "session" (id
// ROBOT-START-session, no segments) cut at episode.max_duration, so that
// the store's retention bounds them like any episode (session.go).
//
// The daemon maps the config file's uplink section onto uplink.Config
// (uplinkConfig; uplink imports no config) and hands what it makes to a
// ship.Shipper over the uplink, which owns the wire bodies.
//
// Trace checks (config checks:, package tracecheck; checks.go): when an
// episode ends, the run loop evaluates them over the closed episode,
// writes the verdicts into its manifest (Store.SetVerdicts) and ships
// them in the end manifest; UNSAT verdicts count in
// edged_check_violations_total{check}, and the status page lists the
// last closed episodes' verdicts with SAT/UNSAT counts per check. An
// episode that cannot be read ships without verdicts, never not at all.
// Reload (SIGHUP) replaces the checks atomically (the run loop reads
// them once per closing episode); rules that do not load refuse the
// whole reload and the running checks stay.
//
// Episodes the store's Open closed after a crash are shipped at start
// like any other (their segments, then the closed manifest). /healthz is
// not ready while the episode store cannot write (a full disk): the fsm
// stage keeps closed segments in memory, retries every second and
// resumes recording by itself when space returns (see package episode
// and fsm).
//
// Replay (replay.go, `edged replay`) runs the same stages over
// recordings instead of a ROS graph: bag/recording opens each by its
// format and merges them in log-time order (bag.Merge), and
// capture.Replay feeds the merged messages on the recording's clock.
//
// Lifecycle: Run starts sinks before sources (store, fsm, rings, then
// capture) and stops sources first (capture, then fsm, whose Close ends
// the open episode as interrupted, then the sheet loop drains and
// finishes the builders, then the store closes).
//
// Concurrency: one run loop owns the per-episode sheet state; the fsm
// stage reports episodes to it through a bounded channel (Observer), and
// the loop also drives every builder with the capture clock. Frame and
// joint sinks run on capture's goroutines and never block.
package daemon
