// Package report renders one recorded episode as a single self-contained
// HTML file for a field engineer (`edged report`): the episode header,
// the FSM segments as a timeline on a time axis with a table below (each
// segment with its labeling sheets, composed from the contact sheets by
// sheet.SegmentImage when the robot shipped none: composed.go), the
// trace checks' verdicts when the
// manifest has them (SAT or UNSAT with the witness, docs/rtl.md), the
// contact sheets per camera at
// their times, and, for each cloud annotation given (a file) or stored in
// the episode by edged annotate (annotations/, stored.go: named with its
// model, prompt version, mode, camera and cost), a second timeline row
// with its scores against the FSM ground truth (package score: tau_k,
// tau_zeta with the encoder named, segment F1, end-to-end F1 with the
// judge named), and the matching that explains those F1 scores: for
// every annotation segment and every FSM segment, its best IoU (linked to
// the other side's segment), its one-to-one match at IoU >= 0.75 or
// "unmatched", the judge's verdict on the matched pair and its end-to-end
// match. The matching is score.Report.Matching as score computed it,
// the same one `edged score` prints, never recomputed here.
// Incident clips (clips.go: episode.Episode.Clips) are marked on the
// timeline at their trigger (from the clip's name, episode.ParseClipName)
// and listed with their first camera frame (read with bag/mcap, at most
// MaxThumbBytes, inlined) and a link to the file, relative to the report
// (Options.OutDir) when the episode is a local directory.
//
// Self-contained means the page makes no request at all (a clip's link
// is followed only when clicked): sheets are
// inlined as data: URIs, CSS and the small script (image load check,
// click to zoom) are inline, and nothing else is referenced. Everything
// that comes from disk is escaped by html/template.
//
// Size is bounded so a one-hour episode gives a file a browser opens
// easily: at most Options.MaxSheets contact sheets per camera (evenly
// spaced over the episode when there are more), at most
// Options.MaxLabelSheets labeling sheets per camera, at most
// Options.MaxImageBytes of images in all, and no single file larger than
// MaxImageFileBytes; the page says what was left out and where the rest
// is. Every file read is capped before it is allocated; an unreadable or
// corrupt sheet is listed as a note, never fatal.
//
// Inputs are read with package episode (LoadBlobs, from Options.Store:
// a directory, blob.Dir, or an object store, read where it is; the
// readers take no lock, so a report can be made beside a live edged),
// the episode's sheets through the same blob.Blobs (one listing, then
// each sheet's metadata, package sheet's Meta, and the JPEGs inlined),
// and annotations and the truth as segmentations with package
// episode/view (ReadSegmentation, Segmentation).
// WriteFile writes the page to a file atomically (temp file, rename),
// its errors naming edged report's --out.
// The package has no goroutines and no state; Write is safe for
// concurrent use.
//
// The rendered page sets data attributes a test (or a curious engineer)
// can check once it has loaded: data-images="ok" on <html> when every
// image decoded (naturalWidth > 0), "broken" otherwise, with
// data-images-loaded and data-images-broken counts.
package report
