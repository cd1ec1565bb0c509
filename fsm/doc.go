// Package fsm turns the robot's task state machine into ground truth:
// state changes from one or more FSM sources become segments, segments
// are grouped into episodes, and both are written to the episode store as
// they close.
//
// Sources (several at once, one per topic; source.go says how each is
// read): string (a std_msgs/String state name), smach (SMACH
// introspection: hierarchical labels, concurrent states as parallel
// segments), actionlib (one segment per goal, its goal's fields as
// Args; action_msgs under ROS 2) and field (a state at a field path of
// any message, decoded dynamically).
//
// Episodes (episodes.go): decided by a recording topic, else by the
// sources' idle states, else one from the first event; cut at
// MaxDuration; a clock that runs backwards (rosbag play --loop) ends the
// open one as interrupted (clock_reset). Raw transitions are recorded
// beside the segments; heartbeats at most every HeartbeatEvery, so a
// crash loses at most that much of an open segment's end.
//
// Text from FSM messages is capped where it enters: state names,
// labels, paths and goal ids at MaxLabelBytes, the instruction at
// MaxInstructionBytes; longer text is stored cut (marked "…[truncated]"),
// counted in Stats.Truncated and logged once per topic.
//
// A store that cannot write (a full disk) keeps closed segments in
// memory and retries every second, so recording resumes by itself
// (retry.go). Observer hears of segments and ends only once they are
// durable.
//
// Config is fsm's own; package pipeline maps the config file's fsm and
// episode sections onto it (fsm does not import package config).
//
// Times are the events' stamps, and between events Config.Clock or the
// latest stamp as moved by Advance, never the wall clock, so a replay is
// deterministic (advance.go).
//
// Concurrency: New starts one goroutine that owns all state and the
// episode Writer. PutState (the capture.StateSink method) never blocks:
// events go through a queue bounded in count (QueueSize) and in the
// memory the events hold (QueueBytes, charged with
// capture.StateEvent.Bytes), and a full queue drops and counts
// (Stats.Dropped). Close stops the goroutine after draining the queue
// and closes the open episode as interrupted (end reason shutdown).
package fsm
