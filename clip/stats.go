package clip

import "maps"

// Stats are the stage's counts (/metrics).
type Stats struct {
	Written    uint64            // clips written
	Bytes      uint64            // their bytes
	LostFrames uint64            // frames of their windows the rings overwrote first
	Deleted    uint64            // old clips deleted for clips.max_bytes
	Skipped    map[string]uint64 // triggers without a clip, by reason (Skip*)
	Pending    int               // clips waiting for their window to end
}

// Stats returns a snapshot.
func (s *Stage) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Skipped = maps.Clone(s.stats.Skipped)
	return st
}
