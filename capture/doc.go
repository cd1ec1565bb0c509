// Package capture binds ROS topics to roles and turns every message into
// one normalized, timestamped event: a Frame for a camera
// (sensor_msgs/Image or sensor_msgs/CompressedImage in JPEG or PNG), a
// JointSample for a sensor_msgs/JointState, a StateEvent for an FSM
// source (String, SMACH and actionlib status typed; anything else, or a
// topic marked Dynamic, as a *msg.Value decoded from the publisher's own
// definition; the fsm package interprets them).
//
// One middleware interface (source.go): a Node subscribes a topic with
// the types its role can use and the role's queue bounds and hands out
// bounded Subscriptions of *ros.Message; a Node with a parameter server
// also offers Params, for /use_sim_time. FromROS1 adapts a ROS1
// *ros.Node; the daemon adapts a ROS 2 DDS participant (no Params: the
// caller sets Config.SimTime). Neither is shaped as the other.
//
// ROS1 and ROS 2: a publisher's Encoding picks the decoders (ros/msg or
// ros2/cdr, codec.go), which fill the same structs, so everything after
// capture is one code path.
//
// One clock (capture.go): an event's Stamp is the header stamp when set
// and within Config.MaxStampSkew of the receive time, else the receive
// time (StampSource says which). The receive time is the wall clock, or
// under sim time the latest /clock; before the first /clock a message
// without a stamp is dropped and counted (NoClockDrops). Under
// SimTimeAuto a Node with Params has /use_sim_time watched.
//
// One type per role: every subscription asks for its role's types
// (RoleTypes); writers of another type are counted
// (TopicStats.WrongTypeWriters under ROS 2, UnknownType under ROS1).
//
// Who calls what. New (no I/O), the sinks started, then Start: it reads
// /use_sim_time, subscribes /clock first when needed, then every topic,
// one goroutine per topic. Validate wraps ErrNoTopics when nothing is
// configured (discovery waits instead). Close cancels, waits, closes the
// subscriptions and releases what is queued. Stats from any goroutine,
// any time. Discover picks cameras and joints from the graph.
// NewReplay runs recorded messages through the same conversion,
// synchronously, on the record time (replay.go).
//
// Hand-offs (docs/DESIGN.md, "Hand-offs per message"). A Node whose
// subscriptions are Direct (FromROS1; the daemon's ROS 2 adapter) calls
// SubscribeOptions.Handle on its readers (a socket reader, the DDS
// participant's pump): a frame is read, decoded and copied into its ring
// on one goroutine (per-topic mutex over the decode scratch, for several
// publishers). Other Nodes (tests' fakes) deliver on Messages(), read by
// one goroutine per topic. Sinks must be fast and never block: a slow sink
// (under ROS 2 it stalls every topic of the participant, and discovery)
// stalls the topic's reader (Direct) or overflows the subscription's
// queue (TopicStats.SubscriptionDrops). Capture never decodes JPEG.
//
// Memory: every subscription is bounded in bytes and count (config.go
// has the bounds and what one peer can cost: ~146 MiB a camera topic,
// ~50 MiB a state topic with the defaults); a JointState over
// Config.MaxJoints joints is dropped and counted (TooManyJoints). A
// Frame carries its header.frame_id (the decoder's string, reused while
// it does not change); one over MaxFrameIDBytes is dropped from the
// frame, which is kept, and counted (FrameIDDrops).
//
// Buffer ownership. A ros.Message is released exactly once: a camera
// message by the Frame it became (Frame.Data aliases the message buffer,
// so the sink must call Frame.Release once it has copied the pixels), any
// other message by capture as soon as it is decoded (joint and state
// events own their memory). Bad input (a malformed message, an image
// whose data is shorter than its geometry, a type or image format the
// role cannot use) is released and counted, never fatal.
package capture
