// Package fleet is the fleet view: the running benchmark of a fleet's
// cloud annotator against its own FSM truth. It reads every stored
// annotation of a store (episode.Annotations, written by edged
// annotate), scores each against its episode's segments exactly as
// inspect and report do (episode/view.ScoreAnnotation, package score's
// metrics, never recomputed), and adds them up per model and prompt
// version, robot or day, each mode apart (segmentation, labels on the
// truth's boundaries):
//
//   - result.go: Result, what is kept of one annotation (small: no
//     segments, no raw answer);
//   - tally.go: Tally and Group, the aggregation: counts (episodes,
//     annotations, invalid ones, segments), tau_k and tau_zeta (mean
//     over scored annotations), segment and end-to-end F1 both pooled
//     over all segments (score.Pool) and as the mean per annotation,
//     tokens and cost (per camera-hour too); pure, no I/O;
//   - index.go: Index, the view of one store kept up to date (one
//     listing per refresh; only new or changed annotations read, at
//     most MaxPerRefresh), and Scan, the one-shot view (`edged score
//     --store`);
//   - summary.go: Summary in text and JSON;
//   - watch.go: Watcher, the view a long-running process keeps (`edged
//     sink --listen`: /fleet and the edged_fleet_* series of /metrics,
//     labelled by model and mode only, at most MaxMetricGroups), its
//     refresh periodic and bounded, never done by a scrape.
//
// It sits above score, episode and episode/view, below cmd/edged,
// which wires it into the sink (the sink knows it only as a
// sink.View). Index is not safe for concurrent use; Watcher is (its
// goroutine owns the Index, scrapes read a snapshot under a mutex), and
// its Run returns when its context ends.
package fleet
