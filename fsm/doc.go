// Package fsm turns the robot's task state machine into ground truth:
// state changes from one or more FSM sources become segments, segments
// are grouped into episodes, and both are written to the episode store as
// they close.
//
// Sources (several at once, one per topic):
//   - string: a std_msgs/String holding the current state's name; a
//     change is a transition, a repeat is a heartbeat.
//   - smach: smach_msgs/SmachContainerStatus from every container of a
//     SMACH introspection server; the active leaf states, walked from the
//     root container through nested containers, give hierarchical labels
//     relative to the root (PICK/GRASP) and full paths
//     (/SM_ROOT/PICK/GRASP). Concurrent states give parallel segments.
//     local_data (a pickle) is ignored.
//   - actionlib: actionlib_msgs/GoalStatusArray; one segment per goal from
//     ACTIVE to its terminal status (SUCCEEDED -> completed, ABORTED,
//     REJECTED, LOST -> aborted, PREEMPTED, RECALLED -> preempted),
//     labeled with the goal's status text when it says something, else
//     the action's name (the topic without /status, or /_action/status
//     in ROS 2). The goal's fields, read from the action's goal topic
//     (ROS1's /ACTION/goal, subscribed beside the status), become the
//     segment's Args (goal.go), and the Args of the transition that
//     opens it; when the goal arrives after its status opened the
//     segment, a TransitionGoal record carries them, so that the trace
//     of an open episode and a segment recovered after a crash have them.
//   - field: any message type, the state read at a field path
//     (status.phase) from the dynamically decoded *msg.Value.
//
// Episodes: with a recording topic (std_msgs/Bool true while recording,
// or std_msgs/String holding an episode id, empty between episodes) the
// topic alone decides; otherwise, when any source has idle states, an
// episode runs while such a source is outside them (idle states never
// become segments); otherwise one episode runs from the first event. Every
// episode is cut at MaxDuration (open segments close as interrupted, and a
// new episode starts at once if the conditions still hold). Time that
// runs backwards by more than ClockResetAfter on one source (rosbag play
// --loop under /use_sim_time, a restarted simulator) closes the open
// episode at the last time seen, as interrupted with end reason
// clock_reset, and every source's time starts over: each loop is an
// episode of its own (counted in Stats.ClockResets). The instruction comes from Config.Instruction or the instruction topic
// (std_msgs/String). Raw transitions are recorded beside the segments;
// heartbeats at most every HeartbeatEvery so that a crash loses at most
// that much of an open segment's end.
//
// Text from FSM messages is capped where it enters: state names,
// labels, paths and goal ids at MaxLabelBytes, the instruction at
// MaxInstructionBytes; longer text is stored cut (marked "…[truncated]"),
// counted in Stats.Truncated and logged once per topic.
//
// When the episode store cannot write (a full disk), closed segments wait
// in the Writer's memory and an ended episode waits to be closed; the run
// loop retries every second (retryEvery), also beginning the episode
// that could not begin, so recording resumes by itself when space
// returns. Observer hears of segments and ends only once they are
// durable. Close fails only when its own writes fail (segments then lost
// are reported), never with an error from earlier.
//
// Config is fsm's own; the daemon maps the config file's fsm and
// episode sections onto it (fsm does not import package config).
//
// Times are the events' stamps (capture's one clock); episode seconds
// count from the episode's first event. Between events (an episode cut
// at MaxDuration while nothing arrives, the end of the episode open at
// Close) the machine reads Config.Clock, the stream clock its owner
// injects (edged run: capture's), or, without one, the latest stamp as
// moved on by Advance (edged replay: the recording's time). It never
// reads the wall clock for these times, so a replay is deterministic;
// wall time only paces the store retries.
//
// Concurrency: New starts one goroutine that owns all state and the
// episode Writer. PutState (the capture.StateSink method) never blocks:
// events go through a queue bounded in count (QueueSize) and in the
// memory the events hold (QueueBytes, charged with
// capture.StateEvent.Bytes), and a full queue drops and counts
// (Stats.Dropped). Close stops the goroutine after draining the queue
// and closes the open episode as interrupted (end reason shutdown).
package fsm
