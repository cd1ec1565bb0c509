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
//     segment's start: the shipped ones, or, of an episode whose robot
//     shipped none (sheet.ship_label_sheets off), one per segment and
//     camera composed from the contact sheets (composed.go,
//     sheet.LabelImage, as annotate and report compose them);
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
// episode.LoadBlobs and its store. Write reads each file capped
// (uplink/wire's MaxBody: nothing larger reaches a store), once, but for
// the contact sheets of an episode without shipped labeling sheets,
// which its composed labeling sheets read again. Memory: one sheet's
// JPEG at a time; composing, it also holds every contact sheet's
// metadata (a few kB each, for the whole episode) and, while one
// labeling sheet is drawn, the JPEGs of the contact sheets its tiles
// come from (at most that image's tiles, usually one or two sheets)
// and one decoded contact sheet, all dropped once it is encoded. A file
// that cannot be read or decoded is left out and named in
// Result.Problems, never silently. It is pure apart from those reads
// and safe for concurrent use.
package mcapexport
