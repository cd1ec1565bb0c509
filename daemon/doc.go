// Package daemon is `edged run`: the live robot. It joins the ROS graph,
// feeds capture from it into the stages (package pipeline, built here
// from the config and the logger) and owns their lifecycle, with what
// only a live process has: the status page and /metrics, reload, and
// systemd's notifications.
//
//	ros.Node or dds.Participant -> capture -> pipeline (rings, sheets, fsm, store, ship, uplink)
//
// The graph (ros2.go): ros.version 1 joins as a ROS1 node, handed to
// capture through capture.FromROS1 (which reads /use_sim_time from the
// master); ros.version 2 joins a DDS domain as a participant, handed to
// capture through ddsNode (a reader per topic of its role's types, with
// the topic's ros2.qos), and ros2.use_sim_time is capture's SimTime: ROS
// 2 has no parameter server and no master, so none is asked for and the
// status page names none. A role with no topics configured is filled
// from the graph's published topics (wiring.go: at start, every
// RediscoverEvery and on reload; pipeline's Discovered caps them), and
// capture restarts on a new topology; the open episode is untouched.
//
// Reload (SIGHUP, Options.Reload) reads the config again and applies its
// cameras, joints and trace checks (pipeline's SetRules: episodes closing
// from then on are judged by them); a config or rules file that does not
// load is refused whole and the running ones stay; other changes are
// reported as needing a restart.
//
// HTTP (http.listen): /metrics (metrics.go: the stages' Stats snapshots
// read at scrape time), /healthz (ready while the master answers,
// capture runs, the store can write and the outbox is not nearly full),
// /status.json, /sheet/N.jpg, the status page, and POST /clip (clips.go:
// an incident clip now, answered once written; RequestClip is its
// client, edged clip's); GET /clips and GET /clips/EPISODE/NAME
// (clipserve.go: the store's clips, read-only, Range; FetchClips in
// clipfetch.go is their client, edged clip fetch's, which also fetches
// uploaded clips from an object store, clipfetchs3.go); the ROS1 node's
// ~snapshot service asks the same way (snapshot.go). Under systemd, READY=1
// once capture runs, WATCHDOG=1 while the pipeline progresses
// (pipeline's Progressing), STOPPING=1 at the end. When the ROS graph
// asks the node to end, Run returns ErrROSShutdown.
//
// Lifecycle: Run opens the pipeline's sinks, ships crash-recovered
// episodes, joins the graph, starts the fsm stage, the status page and
// the sheet loop, then capture (sinks before sources); it stops capture
// first, then the pipeline (fsm, whose Close ends the open episode as
// interrupted, the sheet loop drained, the rings, the uplink), the page,
// the graph, and closes the store last. Check is pipeline.Check, the gate
// `edged config check` shares with New.
//
// Concurrency: Run's goroutine owns the lifecycle and the topology's
// changes (serve: reload and discovery rounds); the current capture is
// an atomic pointer the status page, /metrics and the clock read.
package daemon
