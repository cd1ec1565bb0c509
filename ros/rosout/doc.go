// Package rosout publishes a node's log records on /rosout as
// rosgraph_msgs/Log, as every roscpp and rospy node does, so that
// rqt_console, `rostopic echo /rosout`, the rosout node's aggregate
// and roslaunch's logs see edged's records.
//
// Contract:
//   - Handler is a slog.Handler that passes every record to the handler
//     it wraps (the terminal or journal) and, once Attach has given it a
//     publication, publishes the records at or above its level there.
//     Records before Attach (the node does not exist yet) go only to
//     the wrapped handler.
//   - Publishing never blocks the caller: ros.Publication.Publish copies
//     the message into each subscriber's bounded queue and drops the
//     oldest when one is full (counted in the publication's stats). A
//     slow rqt_console can lose log records, never stall the pipeline.
//   - Encoding allocates per record; log records are rare next to
//     frames. Strings are capped (MaxMessage) so one huge attribute
//     cannot make a huge message.
//   - Safe for concurrent use; WithAttrs/WithGroup handlers share the
//     attachment.
package rosout
