// Package clip writes incident clips: the window [trigger - pre,
// trigger + post] of every camera's ring (frames as received, in their
// header.frame_id: a CompressedImage stays compressed, a raw image is
// JPEG-encoded with the sheet's encoder at clips.quality), the joint states and FSM
// transitions of the window and the episode's segments so far, as one
// MCAP file (bag/mcap: zstd chunks, message indexes, summary) in the
// episode's clips directory (episode.ClipDir, episode.ClipName). Camera
// and joint channels are sensor_msgs/CompressedImage and JointState in
// the robot's ROS: ROS1 (ros1msg schemas and encoders of ros/msg) or,
// with Options.ROS2, ROS 2 (ros2msg schemas as rosbag2 writes them and
// cdr messages, both ros2/cdr's); transitions and segments, which have
// no ROS type, are JSON in edged's episode format. Every channel's metadata
// and the edged.clip Metadata record name the episode, the trigger and
// the window; the record also says how many frames were written and
// lost. Settings and rules: clip/policy.
//
// Who calls what. The pipeline builds one Stage (New), feeds its
// History (joint samples from capture's goroutines; episodes,
// transitions and segments from the sheet loop), moves its stream
// clock (Advance) and triggers clips (Trigger, from any goroutine: the
// FSM's states and outcomes, trace checks' UNSAT verdicts, the
// operator's POST /clip and ~snapshot). A trigger is refused at
// once, logged and counted, when one of its kind came less than
// min_interval before (stream clock), when no episode began yet, or
// when maxPending clips wait; else its clip is written once the stream
// clock passes trigger + post and a settle second for late frames (or
// Options.MaxWait of wall time later,
// a clock that stopped), and Pending says when and what.
//
// Concurrency. One goroutine (started by New, stopped by Close, which
// waits for it and refuses what still waits) writes clips one at a
// time, so writing never stalls capture: the rings are listed (Range,
// metadata only) and each frame copied by its sequence (Copy) under the
// ring's lock for one copy, the generation check telling a frame the
// ring overwrote meanwhile, which is counted as lost (Result.Lost, the
// log, the metadata). With Options.Sync (a replay) clips are written on
// the caller's goroutine in Advance and Flush instead, deterministically.
// Options.OnWritten hears of each clip written (with its SHA-256), on
// the writing goroutine: the pipeline announces it to the receiver and
// hands it to clip/upload.
//
// Priority. The stage's goroutine locks itself to its OS thread for
// good and lowers that thread's nice value by writerNice: on Linux a
// nice value is one thread's, so capture's threads win the CPU while the
// writer copies, JPEG-encodes (TurboJPEG, cgo, on the calling thread)
// and compresses (bag/mcap's zstd encoder: concurrency 1, no goroutine
// of its own) on it. The thread ends with the goroutine, never running
// another one. Since the kernel may keep that thread waiting while it
// holds one of GOMAXPROCS' Ps, the writer yields (runtime.Gosched)
// after each frame. Other OSes: a warning, the writer runs at capture's
// priority. With Options.Sync nothing changes the caller's thread.
//
// Disk. A clip is written to a temporary file, fsynced, renamed into
// place and its directory fsynced. clips.max_bytes bounds every clip of
// the store: the oldest (by trigger time) are deleted first, before the
// store's retention deletes any episode; a clip larger than the budget
// alone is refused (SkipBudget) and deleted. The store's retention may
// delete finished clips too (before any episode), never a temporary file.
//
// Buffers. Frame bytes are copied out of the ring into the stage's own
// buffer and into the MCAP writer's chunk; the History owns the joint
// samples it is given (capture allocates them per message).
package clip
