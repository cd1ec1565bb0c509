// Package dataset exports recorded episodes as samples of published
// embodied-AI benchmarks, so every episode a robot records is also an
// evaluation item (docs/rtl.md has the schemas and samples):
//
//   - vista.go: ViSTa (sequential-task understanding): the episode's
//     steps as a sequential description ("We reach, then we grasp."), its
//     level (the number of steps), and per step its description, time
//     range and labeling sheets (the step's video, as edged keeps it);
//     vistacomposed.go composes them from the contact sheets
//     (sheet.LabelImage) into the export's own directory, never the
//     store, for an episode whose robot shipped none.
//   - etp.go: ETP-Bench (zero-shot embodied task planning): the
//     instruction, the first frame of the episode as an image file, and
//     the executed plan as ordered steps with times.
//
// A step is a closed segment in start order; its action is the recorded
// state read as an RTL element (rtl.ParseElement: pick(banana) is the
// action pick on banana). Paths in the JSON are relative to the episode
// directory (vista) or to the output directory (etp), so the output can
// be moved with what it names.
//
// edged keeps no full-resolution frames: the first frame is the first
// tile of the episode's contact sheets that shows a frame (224 px wide
// with the published recipe, its time badge drawn on it), of the first
// camera in name order.
//
// It sits above episode, sheet (whose metadata it reads) and rtl, below
// cmd/edged. An episode's files are read through blob.Blobs (blob.Sub of
// its store: a directory or an object store, read where it is).
// Functions are pure apart from the reads and writes they name; every
// file read is capped.
package dataset
