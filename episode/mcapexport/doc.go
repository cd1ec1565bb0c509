// Package mcapexport writes an episode as the store holds it (a robot's
// data_dir or a sink's, on disk or in an object store) as one MCAP file,
// `edged export EPISODE --format mcap`, so that Foxglove opens an
// episode as it opens an incident clip (package clip), with the same
// conventions:
//
//   - contact sheets as sensor_msgs/CompressedImage (ros1msg schemas,
//     ros/msg's definitions) on /edged/sheets/CAMERA, each at its first
//     tile's time (the Image panel shows the sheet covering the
//     playhead); labeling sheets on /edged/labels/CAMERA at their
//     segment's start;
//   - snippets (uplink/wire's zstd msgpack) decoded to
//     sensor_msgs/JointState on /edged/snippets/CAMERA, one message per
//     sample at its stamp;
//   - the segments and transitions in edged's episode format (JSON) on
//     clip's topics, and a timeline channel (/edged/timeline: start, end,
//     label, source) holding the FSM's segments and every stored
//     annotation's (episode.Annotations);
//   - every channel's metadata and the edged.episode Metadata record
//     naming the episode.
//
// Who calls what. cmd/edged's export calls Write with an episode read by
// episode.LoadBlobs and its store. Write reads each file once, capped
// (uplink/wire's MaxBody: nothing larger reaches a store), holding one
// sheet at a time; a file that cannot be read or decoded is left out
// and named in Result.Problems, never silently. It is pure apart from
// those reads and safe for concurrent use.
package mcapexport
