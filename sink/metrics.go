package sink

import "github.com/prometheus/client_golang/prometheus"

// Collector exports the sink's counters (Stats) and what it holds in
// memory, for /metrics of `edged sink --listen`. It reads them at scrape
// time, so the message path pays nothing for it.
func (s *Sink) Collector() prometheus.Collector { return collector{s} }

type collector struct{ s *Sink }

func sinkDesc(name, help string) *prometheus.Desc {
	return prometheus.NewDesc("edged_sink_"+name, help, nil, nil)
}

var (
	sinkReceived    = sinkDesc("received_total", "MQTT messages received (chunks counted one by one).")
	sinkDelivered   = sinkDesc("delivered_total", "Whole messages written to the store.")
	sinkDuplicates  = sinkDesc("duplicates_total", "Messages dropped as already delivered (by id).")
	sinkRejected    = sinkDesc("rejected_total", "Invalid envelopes, bodies or chunks: acknowledged and dropped.")
	sinkRetried     = sinkDesc("retried_total", "Messages left unacknowledged for the broker to redeliver (a failed write, a cap).")
	sinkConflicts   = sinkDesc("conflicts_total", "Messages refused because the store holds another content under their name.")
	sinkChunks      = sinkDesc("chunks_total", "Chunks received.")
	sinkExpired     = sinkDesc("expired_total", "Incomplete messages dropped after the chunk timeout.")
	sinkStatuses    = sinkDesc("statuses_total", "Robot statuses written.")
	sinkStale       = sinkDesc("stale_statuses_total", "Robot statuses older than the one held, dropped.")
	sinkConnects    = sinkDesc("connects_total", "Sessions with the broker established.")
	sinkCompleted   = sinkDesc("episodes_completed_total", "Episodes this sink made complete.")
	sinkAcked       = sinkDesc("acks_total", "Acknowledgements to robots the broker took.")
	sinkRaces       = sinkDesc("races_total", "Conditional writes lost to another sink of the group (re-read and applied again).")
	sinkConnected   = sinkDesc("connected", "1 while subscribed at the broker.")
	sinkAcksPending = sinkDesc("acks_pending", "Acknowledgements waiting to be published.")
	sinkPartial     = sinkDesc("partial_bytes", "Bytes of incomplete chunked messages held in memory.")
	sinkStaged      = sinkDesc("staged_messages", "Chunked messages this sink staged in the store for the group.")
	sinkRepairs     = sinkDesc("repair_requests_total", "Requests published to robots for the pieces of an episode the sink lacks.")
	sinkReacks      = sinkDesc("reacks_total", "Acknowledgements published again for an end manifest of an episode held complete.")
	sinkFollowDrop  = sinkDesc("incomplete_dropped_total", "Incomplete episodes no longer followed because 10,000 were (their robots' next end manifest brings them back).")
	sinkIncomplete  = sinkDesc("incomplete_episodes", "Episodes whose end manifest arrived that are not complete (followed for repair).")
	sinkOldest      = sinkDesc("incomplete_oldest_seconds", "How long the oldest incomplete episode has waited since its end manifest arrived (0: none).")
)

func (collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{sinkReceived, sinkDelivered, sinkDuplicates, sinkRejected, sinkRetried,
		sinkConflicts, sinkChunks, sinkExpired, sinkStatuses, sinkStale, sinkConnects, sinkCompleted, sinkAcked,
		sinkRaces, sinkConnected, sinkAcksPending, sinkPartial, sinkStaged, sinkRepairs, sinkReacks, sinkFollowDrop,
		sinkIncomplete, sinkOldest} {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.Stats()
	for _, m := range []struct {
		d *prometheus.Desc
		v uint64
	}{
		{sinkReceived, st.Received}, {sinkDelivered, st.Delivered}, {sinkDuplicates, st.Duplicates},
		{sinkRejected, st.Rejected}, {sinkRetried, st.Retried}, {sinkConflicts, st.Conflicts},
		{sinkChunks, st.Chunks}, {sinkExpired, st.Expired}, {sinkStatuses, st.Statuses},
		{sinkStale, st.StaleStatuses}, {sinkConnects, st.Connects}, {sinkCompleted, st.Completed},
		{sinkAcked, st.Acked}, {sinkRaces, st.Races}, {sinkRepairs, st.RepairRequests}, {sinkReacks, st.Reacks},
		{sinkFollowDrop, st.FollowDropped},
	} {
		ch <- prometheus.MustNewConstMetric(m.d, prometheus.CounterValue, float64(m.v))
	}
	h := c.s.State()
	connected := 0.0
	if h.Connected {
		connected = 1
	}
	ch <- prometheus.MustNewConstMetric(sinkConnected, prometheus.GaugeValue, connected)
	ch <- prometheus.MustNewConstMetric(sinkAcksPending, prometheus.GaugeValue, float64(h.AcksPending))
	ch <- prometheus.MustNewConstMetric(sinkPartial, prometheus.GaugeValue, float64(h.PartialBytes))
	ch <- prometheus.MustNewConstMetric(sinkStaged, prometheus.GaugeValue, float64(h.Staged))
	ch <- prometheus.MustNewConstMetric(sinkIncomplete, prometheus.GaugeValue, float64(h.Incomplete))
	oldest := 0.0
	if !h.OldestIncomplete.IsZero() {
		oldest = c.s.now().Sub(h.OldestIncomplete).Seconds()
	}
	ch <- prometheus.MustNewConstMetric(sinkOldest, prometheus.GaugeValue, oldest)
}
