package fsm

import (
	"unicode/utf8"
)

// Caps on the text an FSM message may put in the episode store, applied
// where events enter the run loop. A record is at most
// episode.MaxRecordBytes (1 MiB) and a manifest is read back only up to
// 1 MiB: without these caps one long state name made every record
// holding it fail, and the segment was lost.
const (
	// MaxLabelBytes caps a state name, label, state path, goal id and the
	// raw state of a transition (and an episode name from the recording
	// topic). Longer ones are cut at a UTF-8 boundary and marked with
	// truncatedMark; Stats.Truncated counts them.
	MaxLabelBytes = 1024
	// MaxInstructionBytes caps the instruction stored in the manifest.
	MaxInstructionBytes = 64 << 10
)

const truncatedMark = "…[truncated]"

// clip cuts s to at most max bytes (mark included) at a rune boundary.
func clip(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	n := max - len(truncatedMark)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + truncatedMark, true
}

// clipUpdate caps every text of u; it reports whether anything was cut.
func clipUpdate(u update) (update, bool) {
	var cut, c bool
	u.raw, cut = clip(u.raw, MaxLabelBytes)
	if !needsClip(u) {
		return u, cut
	}
	act := make(map[string]active, len(u.active))
	for k, a := range u.active {
		k, c = clip(k, MaxLabelBytes)
		cut = cut || c
		a.label, c = clip(a.label, MaxLabelBytes)
		cut = cut || c
		a.path, c = clip(a.path, MaxLabelBytes)
		cut = cut || c
		a.goalID, c = clip(a.goalID, MaxLabelBytes)
		cut = cut || c
		act[k] = a
	}
	ended := make(map[string]string, len(u.ended))
	for k, o := range u.ended {
		k, _ = clip(k, MaxLabelBytes)
		ended[k] = o
	}
	u.active, u.ended = act, ended
	return u, true
}

func needsClip(u update) bool {
	for k, a := range u.active {
		if len(k) > MaxLabelBytes || len(a.label) > MaxLabelBytes || len(a.path) > MaxLabelBytes || len(a.goalID) > MaxLabelBytes {
			return true
		}
	}
	for k := range u.ended {
		if len(k) > MaxLabelBytes {
			return true
		}
	}
	return false
}
