// Package replay is `edged replay`: the stages of edged run (package
// pipeline) over recordings instead of a ROS graph, as fast as the
// machine allows.
//
//	bag/recording.OpenAll -> recording.Merge (log-time order, bag.Merge)
//	  -> capture.Replay (the record time as the clock) -> pipeline
//
// Each bag is opened by its format (a ROS1 .bag; a rosbag2 directory,
// .mcap or .db3), whatever ros.version says; incident clips are
// written in the recordings' ROS version (ROS 2 messages when every bag
// is ROS 2, ros.version's when ROS1 and ROS 2 bags mix, pipeline.SetROS2
// before the clip stage is made). The run is deterministic:
// the sheets advance on the recording's clock (a Runner ticked as the
// live loop would be), every FSM message is handled, and its events,
// before the next message, and the store's clock is the recording's,
// so a bag replayed twice gives byte-for-byte identical stores. A
// stretch longer than replay.max_gap ends the open episode or session
// and is reported (Summary.Gaps) rather than walked through. What could
// not be read or used (damaged files, malformed messages, per topic) is
// listed in Summary.Damage and makes Run's error ErrDamagedInput once
// everything readable was replayed.
//
// Config applies edged replay's flags over the config file (or the
// defaults) and checks the result (pipeline.Check), naming the flags in
// errors about values they set. New prepares a Replay; Run replays once
// on the caller's goroutine (the fsm stage has its own, which Run waits
// for after each of its messages) and returns when the bags end or ctx
// is cancelled, having closed every stage. Summary.Print is the
// command's report.
package replay
