// Package sheet turns camera frames into timestamped contact sheets, the
// images the cloud VLM annotates (DESIGN.md, "Contact sheets").
//
// What it owns: the sampling grid (tick k at episode start + k x interval,
// computed from k so it never drifts), tiles (decode with libjpeg-turbo at
// a reduced DCT scale, straight into the tile's place in the sheet canvas
// when that scale lands on the tile, raw sensor_msgs/Image encodings
// converted to RGB, otherwise an area-filtered downscale to the tile
// width keeping the aspect ratio), the
// timestamp badge (seconds since the episode start, top-left, white on a
// black box, glyphs at least 12% of the tile height and 14 px, in Go Mono
// Bold from golang.org/x/image rasterized once per size into glyph masks,
// so machines read it as well as people), placeholder tiles for ticks
// without a frame, sheet composition and JPEG encoding, sheet metadata
// with the VLM token cost, the episode's tile cache and labeling sheets
// for segments, segment images composed from stored contact sheets, and
// an atomic directory writer. It knows neither ROS nor MQTT.
// PlaneResizer (the area filter on one 8-bit plane) serves issue 25's
// planar-YCbCr prototype in bench/sheet; the Builder composes RGB.
//
// Who calls what: edged run creates, per camera and episode, a Builder
// reading from the camera's ringbuf.Ring (Source) and drives it with the
// capture clock through Advance (the pipeline's sheet loop does that);
// Finish ends the episode and emits the last, possibly shorter, sheet;
// Reset then makes the builder the camera's next episode's, keeping its
// TurboJPEG handles and buffers (no new canvas or output per episode).
// When a segment closes, LabelSheet builds its labeling sheet from the
// tile cache (the pipeline does only when it ships them,
// sheet.ship_label_sheets; else it sets NoTileCache): one per segment, always, named by the segment's index
// (label-SSSS.jpg) and described by it (Meta.Segment: index, [start,
// end); never the FSM label, which is ground truth), its tiles the ticks
// strictly inside [start, end) with real frames preferred over
// placeholders, laid out to fit one 768 x 768 VLM tile (LabelGrid: 258
// tokens). A segment holding no tick shows the frame nearest its middle,
// or a placeholder and Meta.Note saying why. edged sheet calls
// BuildFiles. At the cloud, the annotator's seeded relabeling calls
// SegmentImage for the previous, current and next predicted segment: the
// tiles of the stored contact sheets in [from, to] cropped with their
// badges, at most DefaultLabelTiles as the labeling sheet (the one rule,
// segment.go says why), evenly spaced (first and last kept), laid out by LabelGrid's
// rule within maxSide; BlankImage (or a range with no tile near it) is
// the image of an absent neighbour. LabelImage is the labeling image of a
// segment whose robot shipped none (SegmentImage within one VLM tile).
//
// Presets (PresetRecipe): "published" is DefaultRecipe; "low-cost" has
// 153-px tiles so that a 5 x 4 contact sheet is one VLM tile (258 tokens
// per 10 s instead of 516).
//
// Concurrency: Builder methods are safe for concurrent use (one mutex per
// builder; builders of different cameras run in parallel). Tiler and the
// turbojpeg handles are per goroutine.
//
// Buffer ownership: a Sheet passed to Emit is borrowed: its JPEG and
// Tiles are the builder's reused buffers, valid until Emit returns (Clone
// to keep them). This is what makes a sheet cost no allocation in steady
// state. LabelSheet returns a sheet the caller owns; SegmentImage and
// BlankImage return bytes the caller owns, only read their input, and
// are safe for concurrent use.
//
// Bad input: a corrupt, truncated or empty JPEG, absurd dimensions, an
// unsupported encoding (named in the error, logged once per camera and
// encoding), or a raw image whose step or data length disagrees with its
// size is a counted error in Stats; the builder then tries the next
// nearest frame in the tick's window (up to 3 frames) and otherwise
// draws a placeholder. SegmentImage refuses a sheet that does not
// decode, is larger than a contact sheet can be, or whose metadata
// disagrees with its JPEG (ErrSegmentInput) before allocating its
// pixels. Nothing here panics on input.
//
// Clock: Advance catches up at most MaxBacklog (10 min) of ticks; a
// larger forward jump completes the open sheet and skips ahead.
package sheet
