// Package view presents what package episode stores to people and to
// scoring, so the store itself knows nothing of either:
//
//   - table.go renders the store for a terminal: WriteList (one line per
//     episode, `edged inspect`) and WriteTimeline (one episode, its
//     manifest with its trace checks' verdicts, and one line per
//     segment, `edged inspect EPISODE`);
//   - export.go writes an episode's segments in the export formats of
//     `edged export` (Export: wgo, steps, foxglove);
//   - segmentation.go turns a recorded episode into a score.Segmentation
//     (Segmentation) and reads an input of `edged score` and `edged
//     report` (ReadSegmentation: an episode directory or an annotation
//     file, parsed by score.ParseSegmentation) and the verdicts file of
//     an external judge (ReadVerdicts, parsed by score.ParseVerdicts),
//     each read capped at score.MaxInputBytes;
//   - annotation.go reads the annotations edged annotate stored in an
//     episode and scores each against its FSM segments
//     (StoredAnnotations, ReadAnnotation, ScoreAnnotation: the one way
//     inspect, report and score/fleet score them) and renders them for
//     `edged inspect EPISODE` (WriteAnnotations).
//
// It sits above both episode and score and below cmd/edged, report and
// score/fleet, its only callers. Every function is pure apart from the reads it
// names, and safe for concurrent use.
package view
