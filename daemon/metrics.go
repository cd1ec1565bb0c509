package daemon

import (
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/prometheus/client_golang/prometheus"
	"time"
)

// collector exports the stages' counters on /metrics. It reads their
// Stats snapshots at scrape time, so the hot paths pay nothing for it.
type collector struct{ d *Daemon }

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("edged_"+name, help, labels, nil)
}

var (
	topicMessages     = desc("topic_messages_total", "Messages received per topic.", "topic", "role")
	topicBytes        = desc("topic_bytes_total", "Message bytes received per topic.", "topic", "role")
	topicDrops        = desc("topic_drops_total", "Messages dropped per topic (slow consumer or no clock yet).", "topic", "role")
	topicDecodeErrors = desc("topic_decode_errors_total", "Malformed messages per topic.", "topic", "role")
	topicUnknown      = desc("topic_unknown_type_total", "Messages of a type the topic's role cannot use.", "topic", "role")
	topicConnErrors   = desc("topic_connection_errors_total", "Publisher connections closed for a bad header, an oversized or stalled frame, per topic.", "topic", "role")
	topicReconnects   = desc("topic_reconnects_total", "Publisher connections re-established per topic.", "topic", "role")
	topicPublishers   = desc("topic_publishers", "Publishers connected now per topic.", "topic", "role")
	topicFrameIDDrops = desc("topic_frame_id_drops_total", "Camera frames whose header.frame_id was over capture.MaxFrameIDBytes (kept without it), per topic.", "topic", "role")
	topicWrongType    = desc("topic_wrong_type_writers_total", "Writers of a type the topic's role cannot use, seen on it, each once (ROS 2: nothing they send is read).", "topic", "role")
	discoveryRefused  = desc("discovery_refused_total", "Discovered camera and joint topics not captured: over discovery.max_cameras or max_joints.")
	ringFill          = desc("ring_fill_bytes", "Frame bytes held in a camera's ring.", "camera")
	ringCap           = desc("ring_capacity_bytes", "Size of a camera's ring.", "camera")
	ringTouched       = desc("ring_touched_bytes", "Bytes of a camera's ring ever written (resident); the ring cycles through about what ring.max_age keeps.", "camera")
	ringFrames        = desc("ring_frames", "Frames held in a camera's ring.", "camera")
	ringOverwritten   = desc("ring_overwritten_total", "Frames evicted from a camera's ring.", "camera")
	ringSpan          = desc("ring_span_seconds", "Time span of the frames in a camera's ring.", "camera")
	ringDropped       = desc("frames_unrouted_total", "Frames that no ring took (too large or unknown topic).")
	sheetsTotal       = desc("sheets_total", "Contact sheets written.")
	sheetBytes        = desc("sheet_bytes_total", "Contact sheet JPEG bytes written.")
	sheetErrors       = desc("sheet_errors_total", "Sheets that could not be stored.")
	labelSheets       = desc("label_sheets_total", "Labeling sheets written (one per camera per segment, only with sheet.ship_label_sheets).")
	camerasRefused    = desc("cameras_refused_total", "Discovered camera topics not captured because another camera has their directory (episode.CameraDir).")
	episodesTotal     = desc("episodes_started_total", "Episodes begun.")
	segmentsTotal     = desc("segments_total", "Segments closed and stored.")
	episodesUploaded  = desc("episodes_uploaded_total", "Episodes the receiver acknowledged holding complete, marked uploaded.")
	episodeOpen       = desc("episode_open", "1 while an episode is being recorded.")
	fsmEvents         = desc("fsm_events_total", "FSM source events handled.")
	fsmDropped        = desc("fsm_dropped_total", "FSM events dropped because the fsm queue was full.")
	fsmBad            = desc("fsm_bad_events_total", "FSM events a source could not interpret.")
	fsmStoreErrors    = desc("fsm_store_errors_total", "Writes to the episode store that failed.")
	fsmTruncated      = desc("fsm_truncated_total", "FSM messages whose state name, label or instruction was stored cut (longer than the cap).")
	fsmClockResets    = desc("fsm_clock_resets_total", "Backward time jumps (a looped bag, a restarted simulator) that closed the open episode and started over.")
	storeErrors       = desc("episode_store_errors_total", "Failed writes to the episode store per operation (mkdir, manifest, append, fsync, retain).", "op")
	storeWritable     = desc("episode_store_writable", "1 while the episode store can write (0: disk full or broken; recording is degraded).")
	storeLost         = desc("episode_segments_lost_total", "Closed segments lost because the episode store could not write them.")
	storeDeleted      = desc("episode_retention_deleted_total", "Episodes deleted by retention (keep_bytes, keep_episodes, min_free_bytes).")
	storeClipsDeleted = desc("episode_retention_clips_deleted_total", "Incident clips deleted by the store's retention (keep_bytes, min_free_bytes) before any episode.")
	storeClipBytesDel = desc("episode_retention_clip_bytes_deleted_total", "Bytes of the incident clips the store's retention deleted.")
	storeFree         = desc("episode_store_free_bytes", "Free bytes on the episode store's file system at the last check (-1: unknown).")
	jointSamples      = desc("joint_samples_total", "Joint samples received.")
	masterUp          = desc("ros_master_up", "1 while the ROS master answers.")
	outboxPending     = desc("outbox_pending_messages", "Messages in the outbox waiting for the broker's acknowledgement.")
	outboxPendingB    = desc("outbox_pending_bytes", "Bytes of the messages waiting in the outbox.")
	outboxDisk        = desc("outbox_disk_bytes", "Bytes the outbox uses on disk.")
	outboxEvicted     = desc("outbox_evicted_total", "Messages evicted from a full outbox: sheets not sent yet, and what was kept for the receiver (outbox_evicted_held_total).")
	outboxHeld        = desc("outbox_held_messages", "Messages the broker took, kept until the receiver acknowledges their episode (to send again if it lacks them).")
	outboxHeldB       = desc("outbox_held_bytes", "Bytes of the messages kept for the receiver.")
	outboxEvictedHeld = desc("outbox_evicted_held_total", "Messages kept for the receiver and evicted before it acknowledged their episode (the outbox was full): it cannot get them again.")
	awaitingEpisodes  = desc("uplink_awaiting_episodes", "Ended episodes the broker took whole that the receiver has not acknowledged complete.")
	awaitingOldest    = desc("uplink_awaiting_oldest_seconds", "How long the oldest of them has waited (0: none).")
	repairRequests    = desc("uplink_repair_requests_total", "Requests of the receiver for pieces of an episode it lacks.")
	repairResent      = desc("uplink_repair_resent_total", "Messages sent again because the receiver lacked them.")
	repairUnavailable = desc("uplink_repair_unavailable_total", "Pieces the receiver asked for that this robot no longer holds (evicted, or never made).")
	endResends        = desc("uplink_end_resends_total", "End manifests sent again because the receiver had not acknowledged the episode after uplink.resend_after.")
	outboxQuarantined = desc("outbox_quarantined_total", "Corrupt outbox records moved to quarantine.")
	outboxAcked       = desc("outbox_acked_total", "Outbox messages removed because the broker acknowledged them.")
	outboxDropped     = desc("outbox_dropped_total", "Outbox messages given up without delivery (they could not be sent: corrupt).")
	uplinkEnqueued    = desc("uplink_enqueued_total", "Messages put in the outbox.")
	uplinkErrors      = desc("uplink_errors_total", "Messages that could not be put in the outbox (disk errors).")
	mqttConnected     = desc("mqtt_connected", "1 while connected to the MQTT broker.")
	mqttPublished     = desc("mqtt_published_total", "Messages the broker acknowledged.")
	mqttBytes         = desc("mqtt_bytes_total", "Payload bytes published.")
	mqttResent        = desc("mqtt_resent_total", "Messages returned to the outbox unacknowledged (to be sent again).")
	mqttConnectErrors = desc("mqtt_connect_errors_total", "Failed connection attempts to the broker.")
	outboxOldest      = desc("outbox_oldest_age_seconds", "How long the oldest message in the outbox has waited.")
	checkViolations   = desc("check_violations_total", "Episodes whose trace check (checks: in the config, docs/rtl.md) was UNSAT, per check.", "check")
	mqttLastAck       = desc("mqtt_last_ack_timestamp_seconds", "When the broker last acknowledged a message (unix seconds, 0: never).")
)

// sheetBuildSeconds is the builder work per contact sheet: the time spent
// in Advance/Finish since the camera's previous sheet (decoding, tiling,
// composing, encoding).
var sheetBuildBuckets = []float64{.005, .01, .02, .05, .1, .2, .5, 1, 2}

func newSheetBuildHistogram() prometheus.Histogram {
	return prometheus.NewHistogram(prometheus.HistogramOpts{Name: "edged_sheet_build_seconds",
		Help: "Builder work per contact sheet (decode, tile, compose, encode).", Buckets: sheetBuildBuckets})
}

func (c collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{topicMessages, topicBytes, topicDrops, topicDecodeErrors, topicUnknown,
		topicConnErrors, topicReconnects, topicPublishers, topicWrongType, topicFrameIDDrops, discoveryRefused, ringFill, ringCap, ringTouched, ringFrames, ringOverwritten, ringSpan, ringDropped,
		sheetsTotal, sheetBytes, sheetErrors, labelSheets, camerasRefused, episodesTotal, segmentsTotal, episodesUploaded, episodeOpen, fsmEvents,
		fsmDropped, fsmBad, fsmStoreErrors, fsmTruncated, fsmClockResets, storeErrors, storeWritable, storeLost, storeDeleted, storeClipsDeleted, storeClipBytesDel, storeFree, jointSamples, masterUp, outboxPending, outboxPendingB, outboxDisk,
		outboxEvicted, outboxQuarantined, outboxAcked, outboxDropped, uplinkEnqueued, uplinkErrors, mqttConnected, mqttPublished, mqttBytes,
		mqttResent, mqttConnectErrors, outboxOldest, mqttLastAck, checkViolations, outboxHeld, outboxHeldB, outboxEvictedHeld,
		awaitingEpisodes, awaitingOldest, repairRequests, repairResent, repairUnavailable, endResends} {
		ch <- d
	}
	for _, d := range clipDescs {
		ch <- d
	}
}

func (c collector) Collect(ch chan<- prometheus.Metric) {
	m := metricSink{ch}
	m.capture(c.d)
	m.pipeline(c.d)
	m.uplink(c.d)
	m.clips(c.d)
}

// metricSink sends metrics of one scrape.
type metricSink struct{ ch chan<- prometheus.Metric }

func (m metricSink) counter(desc *prometheus.Desc, v uint64, labels ...string) {
	m.ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v), labels...)
}

func (m metricSink) gauge(desc *prometheus.Desc, v float64, labels ...string) {
	m.ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, labels...)
}

// capture: topics, rings, discovery, trace checks.
func (m metricSink) capture(d *Daemon) {
	counter, gauge := m.counter, m.gauge
	if capt := d.capt.Load(); capt != nil {
		for _, t := range capt.Stats() {
			role := t.Role.String()
			counter(topicMessages, t.Messages, t.Topic, role)
			counter(topicBytes, t.Bytes, t.Topic, role)
			counter(topicDrops, t.Drops, t.Topic, role)
			counter(topicDecodeErrors, t.DecodeErrors, t.Topic, role)
			counter(topicUnknown, t.UnknownType, t.Topic, role)
			counter(topicConnErrors, t.Errors, t.Topic, role)
			counter(topicReconnects, t.Reconnects, t.Topic, role)
			gauge(topicPublishers, float64(t.Publishers), t.Topic, role)
			counter(topicWrongType, t.WrongTypeWriters, t.Topic, role)
			counter(topicFrameIDDrops, t.FrameIDDrops, t.Topic, role)
		}
	}
	for _, s := range d.pipe.Topology().RingStats() {
		gauge(ringFill, float64(s.FillBytes), s.Topic)
		gauge(ringCap, float64(s.CapBytes), s.Topic)
		gauge(ringTouched, float64(s.TouchedBytes), s.Topic)
		gauge(ringFrames, float64(s.Frames), s.Topic)
		counter(ringOverwritten, s.Overwritten, s.Topic)
		gauge(ringSpan, s.Span.Seconds(), s.Topic)
	}
	st := d.pipe.Stats()
	counter(ringDropped, st.FramesUnrouted)
	counter(discoveryRefused, st.DiscoveryRefused)
	for _, c := range d.pipe.Checks() {
		counter(checkViolations, c.Unsat, c.Check)
	}
}

// pipeline: sheets, episodes, the FSM, the store, joints, the master.
func (m metricSink) pipeline(d *Daemon) {
	counter, gauge := m.counter, m.gauge
	st := d.pipe.Stats()
	counter(sheetsTotal, st.Sheets)
	counter(sheetBytes, st.SheetBytes)
	counter(sheetErrors, st.SheetErrors)
	counter(labelSheets, st.LabelSheets)
	counter(camerasRefused, st.CamerasRefused)
	counter(episodesTotal, st.Episodes)
	counter(segmentsTotal, st.Segments)
	counter(episodesUploaded, st.Uploaded)
	gauge(episodeOpen, b2f(d.pipe.Status().EpisodeOpen()))
	if m := d.pipe.Machine(); m != nil {
		f := m.Stats()
		counter(fsmEvents, f.Events)
		counter(fsmDropped, f.Dropped)
		counter(fsmBad, f.Bad)
		counter(fsmStoreErrors, f.StoreErrors)
		counter(fsmTruncated, f.Truncated)
		counter(fsmClockResets, f.ClockResets)
	}
	if s := d.pipe.Store(); s != nil {
		st := s.Stats()
		for _, op := range []string{epstore.OpMkdir, epstore.OpManifest, epstore.OpAppend, epstore.OpSync, epstore.OpRetain} {
			counter(storeErrors, st.Errors[op], op)
		}
		gauge(storeWritable, b2f(len(st.Failing) == 0))
		counter(storeLost, st.SegmentsLost)
		counter(storeDeleted, uint64(st.Deleted))
		counter(storeClipsDeleted, uint64(st.ClipsDeleted))
		counter(storeClipBytesDel, uint64(st.ClipBytesDeleted))
		gauge(storeFree, float64(st.FreeBytes))
	}
	counter(jointSamples, st.JointSamples)
	if n := d.node; n != nil {
		gauge(masterUp, b2f(n.MasterUp()))
	}
}

// uplink: the outbox, MQTT and repair.
func (m metricSink) uplink(d *Daemon) {
	counter, gauge := m.counter, m.gauge
	up := d.pipe.Uplink()
	if up == nil {
		return
	}
	u := up.Stats()
	gauge(outboxPending, float64(u.Outbox.Pending))
	gauge(outboxPendingB, float64(u.Outbox.PendingBytes))
	gauge(outboxDisk, float64(u.Outbox.DiskBytes))
	counter(outboxEvicted, u.Outbox.Evicted)
	counter(outboxQuarantined, u.Outbox.Quarantined)
	counter(outboxAcked, u.Outbox.Acked)
	counter(outboxDropped, u.Outbox.Dropped)
	counter(uplinkEnqueued, u.Enqueued)
	counter(uplinkErrors, u.Errors)
	gauge(mqttConnected, b2f(u.Publisher.Connected))
	counter(mqttPublished, u.Publisher.Published)
	counter(mqttBytes, u.Publisher.Bytes)
	counter(mqttResent, u.Publisher.Resent)
	counter(mqttConnectErrors, u.Publisher.ConnectErrors)
	gauge(outboxOldest, u.Outbox.OldestAge.Seconds())
	last := 0.0
	if !u.Publisher.LastAck.IsZero() {
		last = float64(u.Publisher.LastAck.UnixNano()) / 1e9
	}
	gauge(mqttLastAck, last)
	gauge(outboxHeld, float64(u.Outbox.Held))
	gauge(outboxHeldB, float64(u.Outbox.HeldBytes))
	counter(outboxEvictedHeld, u.Outbox.EvictedHeld)
	gauge(awaitingEpisodes, float64(u.Repair.Awaiting))
	oldest := 0.0
	if t := u.Repair.OldestAwaiting; !t.IsZero() {
		oldest = time.Since(t).Seconds()
	}
	gauge(awaitingOldest, oldest)
	counter(repairRequests, u.Repair.Requests)
	counter(repairResent, u.Repair.Resent)
	counter(repairUnavailable, u.Repair.Unavailable)
	counter(endResends, u.Repair.EndResends)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
