// Package rostool is the work of edged's ROS command-line tools (`edged
// topics`, `edged echo`) over either middleware: a ROS1 node (package
// ros) or a ROS 2 participant (package ros2/dds).
//
//   - printer.go: Printer decodes each message with its publisher's
//     definition (ROS1: the one it sent, ros/msg; ROS 2: the bundled
//     definitions or a registry of the user's, ros2/cdr), parsed once
//     per publisher, and prints it as text or one JSON line; long byte
//     arrays are summarized unless AllBytes.
//   - echo.go: Echo subscribes to one topic and prints its messages
//     until a count or the context ends, with notes for the user (no
//     publisher yet, connections closed for oversized messages).
//   - topics.go: the topic tables (TopicsROS1 from the master,
//     TopicsROS2 from DDS discovery), CheckMaster, AnonymousName.
//
// cmd/edged owns the flags and builds the node or participant; this
// package owns neither. A Printer belongs to one goroutine; Echo runs on
// the caller's and releases every message it receives. Every wait is
// bounded by the caller's context or the discovery window.
package rostool
