package fleet

import (
	"github.com/prometheus/client_golang/prometheus"
)

func fleetDesc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("edged_fleet_"+name, help, labels, nil)
}

var groupLabels = []string{"model", "prompt_version", "mode"}

var (
	fleetEpisodes    = fleetDesc("episodes", "Episodes in the store (at the last refresh of the fleet view).")
	fleetAnnotated   = fleetDesc("annotated_episodes", "Episodes with at least one annotation.")
	fleetPending     = fleetDesc("pending_annotations", "Annotations not read yet (the bounded refresh reads them next).")
	fleetRefreshed   = fleetDesc("refreshed_timestamp_seconds", "When the fleet view was last computed (0: not yet).")
	fleetFailures    = fleetDesc("refresh_failures_total", "Refreshes of the fleet view whose listing of the store failed.")
	fleetDropped     = fleetDesc("groups_dropped", "Model groups left off /metrics beyond the cap (see /fleet for all).")
	fleetAnnotations = fleetDesc("annotations", "Annotations, by model, prompt version and mode.", groupLabels...)
	fleetInvalid     = fleetDesc("invalid_annotations", "Annotations recorded invalid or refused by score (not scored).", groupLabels...)
	fleetGroupEps    = fleetDesc("group_episodes", "Episodes annotated by the model.", groupLabels...)
	fleetSegments    = fleetDesc("segments", "Segments of the scored annotations: truth (FSM) and pred.", append(groupLabels, "side")...)
	fleetTauK        = fleetDesc("tau_k", "Temporal similarity tau_k, mean over scored annotations.", groupLabels...)
	fleetTauZeta     = fleetDesc("tau_zeta", "Semantic similarity tau_zeta, mean over scored annotations.", groupLabels...)
	fleetSegF1       = fleetDesc("segment_f1", "Segment F1 at IoU >= 0.75: pooled over all segments, or the mean per annotation.", append(groupLabels, "kind")...)
	fleetE2EF1       = fleetDesc("end_to_end_f1", "End-to-end F1 (match and judge): pooled over all segments, or the mean per annotation.", append(groupLabels, "kind")...)
	fleetTokens      = fleetDesc("tokens", "Tokens: prompt and completion as the API reported, estimated by edged.", append(groupLabels, "kind")...)
	fleetCost        = fleetDesc("cost_usd", "What the annotations cost, dollars.", groupLabels...)
	fleetCamHours    = fleetDesc("camera_hours", "Hours of episode time annotated (one camera each).", groupLabels...)
)

// Describe implements prometheus.Collector.
func (w *Watcher) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{fleetEpisodes, fleetAnnotated, fleetPending, fleetRefreshed, fleetFailures, fleetDropped,
		fleetAnnotations, fleetInvalid, fleetGroupEps, fleetSegments, fleetTauK, fleetTauZeta, fleetSegF1, fleetE2EF1, fleetTokens,
		fleetCost, fleetCamHours} {
		ch <- d
	}
}

// Collect implements prometheus.Collector from the last snapshot, by
// model only (at most MaxMetricGroups per mode).
func (w *Watcher) Collect(ch chan<- prometheus.Metric) {
	s, at, ok := w.Snapshot()
	w.mu.Lock()
	failures := w.failures
	w.mu.Unlock()
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	ch <- prometheus.MustNewConstMetric(fleetFailures, prometheus.CounterValue, float64(failures))
	refreshed := 0.0
	if ok {
		refreshed = float64(at.UnixNano()) / 1e9
	}
	gauge(fleetRefreshed, refreshed)
	gauge(fleetEpisodes, float64(s.Episodes))
	gauge(fleetAnnotated, float64(s.Annotated))
	gauge(fleetPending, float64(s.Pending))
	perMode, dropped := map[string]int{}, 0
	for _, g := range s.Groups {
		if perMode[g.Mode]++; perMode[g.Mode] > MaxMetricGroups {
			dropped++
			continue
		}
		model, prompt := splitKey(g.Key)
		l := []string{model, prompt, g.Mode}
		with := func(extra string) []string { return append(append([]string{}, l...), extra) }
		gauge(fleetAnnotations, float64(g.Annotations), l...)
		gauge(fleetInvalid, float64(g.Invalid), l...)
		gauge(fleetGroupEps, float64(g.Episodes), l...)
		gauge(fleetSegments, float64(g.TruthSegments), with("truth")...)
		gauge(fleetSegments, float64(g.PredSegments), with("pred")...)
		gauge(fleetTauK, g.TauK, l...)
		gauge(fleetTauZeta, g.TauZeta, l...)
		gauge(fleetSegF1, g.SegmentF1.Pooled.F1, with("pooled")...)
		gauge(fleetSegF1, g.SegmentF1.Mean, with("mean")...)
		gauge(fleetE2EF1, g.EndToEndF1.Pooled.F1, with("pooled")...)
		gauge(fleetE2EF1, g.EndToEndF1.Mean, with("mean")...)
		gauge(fleetTokens, float64(g.PromptTokens), with("prompt")...)
		gauge(fleetTokens, float64(g.CompletionTokens), with("completion")...)
		gauge(fleetTokens, float64(g.EstimatedTokens), with("estimated")...)
		gauge(fleetCost, g.CostUSD, l...)
		gauge(fleetCamHours, g.CameraHours, l...)
	}
	gauge(fleetDropped, float64(dropped))
}
