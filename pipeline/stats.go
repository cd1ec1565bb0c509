package pipeline

import "sync/atomic"

// counters are the stages' own cumulative counts.
type counters struct {
	sheets, sheetBytes, sheetErrors, labelSheets atomic.Uint64
	episodes, segments                           atomic.Uint64
	uploaded                                     atomic.Uint64 // episodes the receiver acknowledged
	camerasRefused                               atomic.Uint64 // discovered cameras whose directory was taken
}

// Stats are the stages' cumulative counts (for /metrics, the summary
// of a run and a replay's).
type Stats struct {
	Sheets, SheetBytes, SheetErrors, LabelSheets uint64
	Episodes, Segments                           uint64
	Uploaded                                     uint64 // episodes the receiver acknowledged, marked uploaded
	CamerasRefused                               uint64 // discovered cameras whose directory was another's
	Frames, FramesUnrouted                       uint64 // frames a ring took; frames no ring took
	JointSamples                                 uint64
	DiscoveryRefused                             uint64 // discovered topics over discovery's caps
}

// Stats is a snapshot of the counts; it may be read at any time.
func (p *Pipeline) Stats() Stats {
	st := &p.stats
	return Stats{Sheets: st.sheets.Load(), SheetBytes: st.sheetBytes.Load(), SheetErrors: st.sheetErrors.Load(),
		LabelSheets: st.labelSheets.Load(), Episodes: st.episodes.Load(), Segments: st.segments.Load(),
		Uploaded: st.uploaded.Load(), CamerasRefused: st.camerasRefused.Load(), Frames: p.router.frames.Load(),
		FramesUnrouted: p.router.dropped.Load(), JointSamples: p.joints.samples.Load(), DiscoveryRefused: p.discovery.total.Load()}
}
