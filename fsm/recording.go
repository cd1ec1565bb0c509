package fsm

import (
	"strings"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/msg"
)

// recordingEvent applies a recording-topic message: a Bool (true while
// recording) or a String episode id (empty between episodes). A change
// of id closes the running episode and starts the next.
func (m *Machine) recordingEvent(v any) bool {
	if b, ok := boolValue(v); ok {
		m.recording = b
		m.recName = ""
		return true
	}
	s, ok := stringValue(v, "data")
	if !ok {
		return false
	}
	s = strings.TrimSpace(s)
	if c, cut := clip(s, MaxLabelBytes); cut {
		s = c
		m.truncated(m.cfg.RecordingTopic, "episode name", MaxLabelBytes)
	}
	if m.w != nil && s != m.recName {
		m.closeEpisode(m.lastStamp, episode.Completed, episode.Completed, episode.EndRecording)
	}
	m.recording, m.recName = s != "", s
	return true
}

// truncated counts a message whose text was cut and logs the first one
// of each topic.
func (m *Machine) truncated(topic, what string, max int) {
	m.count(func(s *Stats) { s.Truncated++ })
	if m.warned[topic] {
		return
	}
	m.warned[topic] = true
	m.cfg.Logger.Warn("fsm: text longer than the cap stored truncated (counted in edged_fsm_truncated_total; further ones are not logged)",
		"topic", topic, "what", what, "max_bytes", max)
}

func stringValue(v any, field string) (string, bool) {
	switch t := v.(type) {
	case *msg.String:
		return t.Data, true
	case *msg.Value:
		x, ok := t.Field(field)
		if s, isStr := x.(string); ok && isStr {
			return s, true
		}
	}
	return "", false
}

func boolValue(v any) (bool, bool) {
	if t, ok := v.(*msg.Value); ok {
		if x, ok := t.Field("data"); ok {
			b, isBool := x.(bool)
			return b, isBool
		}
	}
	return false, false
}
