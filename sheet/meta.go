package sheet

import "time"

// ROSTime is an absolute ROS time.
type ROSTime struct {
	Secs  int64  `json:"secs"`
	Nsecs uint32 `json:"nsecs"`
}

// ROSTimeOf converts t.
func ROSTimeOf(t time.Time) ROSTime {
	ns := t.UnixNano()
	s, n := ns/1e9, ns%1e9
	if n < 0 {
		s, n = s-1, n+1e9
	}
	return ROSTime{Secs: s, Nsecs: uint32(n)}
}

// Time converts back.
func (r ROSTime) Time() time.Time { return time.Unix(r.Secs, int64(r.Nsecs)) }

// TileMeta describes one tile of a sheet, in reading order.
type TileMeta struct {
	// Tick is k in episode start + k x interval.
	Tick int64 `json:"tick"`
	// Seconds is the tick's time since the episode start: the badge.
	Seconds float64 `json:"seconds"`
	// Stamp is the absolute ROS time of the frame shown (of the tick
	// for a placeholder).
	Stamp ROSTime `json:"stamp"`
	// FrameSeconds is the frame's own time since the episode start
	// (within half an interval of Seconds; equal for a placeholder).
	FrameSeconds float64 `json:"frame_seconds"`
	// Placeholder: the camera had no usable frame near this tick.
	Placeholder bool `json:"placeholder,omitempty"`
	// OffGrid (labeling sheets only): the segment holds no tick, and this
	// tile shows the frame nearest its middle instead; Seconds is then
	// the frame's time (the badge) and Tick the last tick before it.
	OffGrid bool `json:"off_grid,omitempty"`
	// Row and Column of the tile in the sheet, from 0.
	Row    int `json:"row"`
	Column int `json:"column"`
}

// CameraID is the camera's name, else its topic: what names its files.
func (m *Meta) CameraID() string {
	if m.CameraName != "" {
		return m.CameraName
	}
	return m.Camera
}

// Meta is a sheet's metadata, usable by an offline VLM pipeline as is.
type Meta struct {
	// Kind is "episode" for the running contact sheets, "label" for a
	// segment's labeling sheet.
	Kind string `json:"kind"`
	// Index is the 1-based number of the sheet within the episode and
	// camera (sheet-0001.jpg is Index 1); for a labeling sheet, the
	// index of its segment (as Segment.Index).
	Index  int    `json:"index"`
	Camera string `json:"camera"` // the topic
	// CameraName is the camera's name (config cameras[].name), which
	// names its directory in an episode on the robot and at the
	// receiver; empty: named by its topic.
	CameraName      string     `json:"camera_name,omitempty"`
	EpisodeStart    ROSTime    `json:"episode_start"`
	IntervalSeconds float64    `json:"interval_seconds"`
	Rows            int        `json:"rows"`
	Columns         int        `json:"columns"`
	TileWidth       int        `json:"tile_width"`
	TileHeight      int        `json:"tile_height"`
	Width           int        `json:"width"`
	Height          int        `json:"height"`
	Quality         int        `json:"quality"`
	Bytes           int        `json:"bytes"`
	Tokens          int        `json:"vlm_tokens"`
	Tiles           []TileMeta `json:"tiles"`
	// Segment (labeling sheets only) is the segment the sheet shows.
	Segment *SegmentMeta `json:"segment,omitempty"`
	// Note (labeling sheets only) says why the sheet shows no frame of
	// its segment, when it does not.
	Note string `json:"note,omitempty"`
}

// SegmentMeta names the segment of a labeling sheet: its index and time
// span [Start, End). It carries no FSM label on purpose: the sheet is an
// observation, shown to a VLM with its metadata; the label is the ground
// truth the VLM's answer is scored against, and lives with the segments
// (segment-NNNN.json of the same index).
type SegmentMeta struct {
	Index        int     `json:"index"`
	Start        ROSTime `json:"start"`
	End          ROSTime `json:"end"`
	StartSeconds float64 `json:"start_seconds"` // since the episode start
	EndSeconds   float64 `json:"end_seconds"`
}

// Sheet is a finished contact sheet: the JPEG and its metadata.
type Sheet struct {
	Meta Meta
	JPEG []byte
}

// Clone returns a deep copy (use it to keep a sheet passed to an Emit
// callback beyond the call).
func (s *Sheet) Clone() *Sheet {
	c := &Sheet{Meta: s.Meta, JPEG: append([]byte(nil), s.JPEG...)}
	c.Meta.Tiles = append([]TileMeta(nil), s.Meta.Tiles...)
	if s.Meta.Segment != nil {
		seg := *s.Meta.Segment
		c.Meta.Segment = &seg
	}
	return c
}
