package pipeline

import (
	"sort"
	"sync"
	"time"

	"github.com/edged-robotics/edged/episode"
)

const recentSegments = 20

// recentJudged is how many closed episodes' verdicts the status page
// shows.
const recentJudged = 10

// Status is what the status page shows of the stages: the episode, the
// FSM sources' states, the recent segments, the latest sheet per camera
// and the last verdicts. The sheets' driver writes it; any goroutine
// reads it (View, Sheet, EpisodeOpen).
type Status struct {
	mu        sync.Mutex
	episode   episode.Manifest
	open      bool
	states    map[string]SourceState // FSM source topic -> current state
	recent    []episode.Segment      // newest last
	lastSheet map[string]SheetSnap   // camera topic -> its latest sheet
	judgedEps []Judged               // trace checks' verdicts, newest first
}

// Judged is a closed episode's verdicts, as the status page lists them.
type Judged struct {
	Episode  string            `json:"episode"`
	End      time.Time         `json:"end"`
	Verdicts []episode.Verdict `json:"verdicts"`
}

// judged records the verdicts of the closed episode m.
func (s *Status) judged(m episode.Manifest, v []episode.Verdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := Judged{Episode: m.ID, End: m.End, Verdicts: v}
	s.judgedEps = append([]Judged{j}, s.judgedEps[:min(len(s.judgedEps), recentJudged-1)]...)
}

// SourceState is an FSM source's current state.
type SourceState struct {
	State string
	Since time.Time
}

// SheetSnap is a camera's latest contact sheet.
type SheetSnap struct {
	JPEG  []byte
	Index int
	Built time.Time
}

func (s *Status) apply(ev episodeEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev.kind {
	case episodeBegan:
		s.episode, s.open, s.recent = ev.manifest, true, nil
	case stateChanged:
		if s.states == nil {
			s.states = map[string]SourceState{}
		}
		s.states[ev.transition.Source] = SourceState{State: ev.transition.To, Since: ev.transition.Stamp}
	case segmentClosed:
		s.recent = append(s.recent, ev.segment)
		if len(s.recent) > recentSegments {
			s.recent = s.recent[len(s.recent)-recentSegments:]
		}
	case episodeEnded:
		s.episode, s.open = ev.manifest, false
	}
}

func (s *Status) sheetBuilt(camera string, index int, jpeg []byte, now time.Time) {
	cp := append([]byte(nil), jpeg...) // the builder reuses its buffer
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastSheet == nil {
		s.lastSheet = map[string]SheetSnap{}
	}
	s.lastSheet[camera] = SheetSnap{JPEG: cp, Index: index, Built: now}
}

// EpisodeOpen reports whether an episode is being recorded.
func (s *Status) EpisodeOpen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// StatusView is a copy of a Status for rendering.
type StatusView struct {
	Episode  episode.Manifest
	Open     bool
	States   []NamedState
	Recent   []episode.Segment
	Sheets   []string // cameras with a sheet
	Observed time.Time
	Judged   []Judged // newest first
}

// NamedState is a source's state and the source.
type NamedState struct {
	Source string
	SourceState
}

// View is a copy for rendering.
func (s *Status) View() StatusView {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := StatusView{Episode: s.episode, Open: s.open, Recent: append([]episode.Segment(nil), s.recent...),
		Judged: append([]Judged(nil), s.judgedEps...)}
	for src, st := range s.states {
		v.States = append(v.States, NamedState{Source: src, SourceState: st})
	}
	sort.Slice(v.States, func(i, j int) bool { return v.States[i].Source < v.States[j].Source })
	for cam := range s.lastSheet {
		v.Sheets = append(v.Sheets, cam)
	}
	sort.Strings(v.Sheets)
	return v
}

// Sheet is the latest sheet of camera (a topic), if any.
func (s *Status) Sheet(camera string) (SheetSnap, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, ok := s.lastSheet[camera]
	return snap, ok
}
