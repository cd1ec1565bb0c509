// Package capture binds ROS topics to roles and turns every message into
// one normalized, timestamped event: a Frame for a camera
// (sensor_msgs/Image or sensor_msgs/CompressedImage in JPEG or PNG), a
// JointSample for a sensor_msgs/JointState, a StateEvent for an FSM
// source (std_msgs/String, smach_msgs/SmachContainerStatus and
// actionlib_msgs/GoalStatusArray typed; anything else, or a topic marked
// Dynamic, as a *msg.Value decoded from the publisher's own definition;
// the fsm package interprets them).
//
// One middleware interface. capture defines what it needs of the graph
// (source.go): a Node subscribes a topic with the types its role can use
// and the role's queue bounds (SubscribeOptions) and hands out bounded
// Subscriptions of *ros.Message; a Node whose middleware has a parameter
// server also offers Params, through which capture reads and follows
// /use_sim_time. FromROS1 adapts a ROS1 *ros.Node (with Params); the
// daemon adapts a ROS 2 DDS participant (Subscribe only: ROS 2 has no
// parameter server, so the caller sets Config.SimTime from its own
// use_sim_time). Neither is shaped as the other.
//
// ROS1 and ROS 2. A message's publisher says how it is serialized
// (ros.PublisherInfo.Encoding): ROS1, or CDR for a ROS 2 source (a
// rosbag2 bag, DDS). capture picks the decoders by it (ros/msg or
// ros2/cdr, codec.go), which fill the same structs, so every event and
// everything after capture is one code path. ROS 2 types are named
// pkg/msg/Name; action status is action_msgs/GoalStatusArray (mapped to
// actionlib's struct, stamped with the receive time: it has no header);
// there is no SMACH. A ROS 2 dynamic type without a definition in its
// publisher's text comes from Options.ROS2Types (the bundled .msg files
// plus a user directory).
//
// One clock. An event's Stamp is the message's header.stamp when it is
// set and within Config.MaxStampSkew (default 10m) of the receive time,
// else the receive time; StampSource says which. The receive time is on
// the capture clock: the wall clock, or under ROS sim time (/use_sim_time
// true, or Config.SimTime) the latest rosgraph_msgs/Clock from /clock, so
// that `rosbag play --clock` replays with the bag's times. Under sim time
// a message that arrives before the first /clock keeps a set header stamp
// and is otherwise dropped and counted (NoClockDrops).
//
// Under SimTimeAuto /use_sim_time is watched when the Node has Params
// (FromROS1's): a master that comes up after edged with it set, a
// restarted master, or a change of the parameter switches the clock,
// subscribing /clock first when needed. A Node without Params runs on
// the wall clock under SimTimeAuto.
//
// One type per role. A topic's role knows the types it can use
// (RoleTypes: a camera's Image or CompressedImage, a JointState, a
// Clock, an FSM source's FSMTopic.Types), and every subscription asks
// for them (SubscribeOptions.Types). A middleware whose readers have one
// type (ROS 2's DDS) reads only those, so a writer of another type on
// the topic, even one that appears first, decides nothing: its writers
// are counted in TopicStats.WrongTypeWriters (Mismatcher) and warned
// about by the subscription. ROS1 subscribes any type and capture counts
// such messages in UnknownType.
//
// Who calls what. The caller builds a Capture with New (no I/O), starts
// the sinks, then calls Start, which reads /use_sim_time, subscribes
// /clock first when needed, then every topic, and runs one goroutine per
// topic. Validate wraps ErrNoTopics when nothing is configured: a caller
// in discovery mode waits for topics to appear instead of failing.
// Close cancels them, waits, closes the subscriptions and releases
// whatever is still queued. Stats may be called at any time from any
// goroutine. Discover picks cameras and joints from the master's
// published topics when none are configured.
//
// Replay. NewReplay gives the same conversion for recorded messages
// (edged replay of a bag): Replay.Handle runs one message synchronously
// through the code the live topic goroutines run, with the record time
// as the capture clock, so a bag replayed gives the events a live
// Capture gives under `rosbag play --clock`. Frames it hands out alias
// the caller's buffer until the sink returns (see Handle).
//
// Sinks must be fast and never block: they run on the topic's goroutine,
// and a slow sink makes the subscription queue overflow (those drops are
// counted in TopicStats.SubscriptionDrops). Capture itself never blocks
// on a consumer and never decodes JPEG.
//
// Memory. Every subscription is bounded in bytes as well as in count
// (the ros package charges frames being read, queued and not yet
// released): a camera topic holds at most QueueBytes (default 128 MiB)
// with messages up to MaxMessageBytes (64 MiB); a joint, FSM or /clock
// topic at most StateQueueBytes (16 MiB) with messages up to
// MaxStateMessageBytes (1 MiB). Drops are counted in
// TopicStats.SubscriptionDrops and logged (rate limited). Decoding a
// state message dynamically costs at most msg.DecodeBudget of its size
// (64 KiB + 16x: 16.1 MiB for the largest), on the topic's goroutine,
// one at a time; replay applies the same message caps (OversizeDrops).
// Per publisher connection add ~1.1 MiB (read buffer, connection header)
// and at most 16 publishers per topic (ros.DefaultMaxPublishers). So
// whatever one peer does on one topic, capture holds at most:
//
//	camera topic: 128 MiB + 16 x 1.1 MiB            ~ 146 MiB
//	state topic:  16 MiB + 16.1 MiB + 16 x 1.1 MiB  ~ 50 MiB
//
// with the defaults; a peer publishing on several topics costs the sum
// of theirs. A JointState is kept whole by the joint sink (the snippets'
// ring), so one of more than Config.MaxJoints joints (default 1024) is
// dropped and counted (TopicStats.TooManyJoints, in Drops). The rings' budget (ring.max_bytes per camera) and what the
// state sinks queue (the fsm stage) come on top.
//
// Buffer ownership. A ros.Message is released exactly once: a camera
// message by the Frame it became (Frame.Data aliases the message buffer,
// so the sink must call Frame.Release once it has copied the pixels), any
// other message by capture as soon as it is decoded (joint and state
// events own their memory). Bad input (a malformed message, an image
// whose data is shorter than its geometry, a type or image format the
// role cannot use) is released and counted, never fatal.
package capture
