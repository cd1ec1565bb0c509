package daemon

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/edged-robotics/edged/episode"
)

const recentSegments = 20

// recentJudged is how many closed episodes' verdicts the status page
// shows.
const recentJudged = 10

// status is what the status page shows; written by the sheet loop, read
// by HTTP handlers.
type status struct {
	mu        sync.Mutex
	episode   episode.Manifest
	open      bool
	states    map[string]sourceState // FSM source topic -> current state
	recent    []episode.Segment      // newest last
	lastSheet map[string]sheetSnap   // camera topic -> its latest sheet
	judgedEps []Judged               // trace checks' verdicts, newest first
}

// Judged is a closed episode's verdicts, as the status page lists them.
type Judged struct {
	Episode  string            `json:"episode"`
	End      time.Time         `json:"end"`
	Verdicts []episode.Verdict `json:"verdicts"`
}

// judged records the verdicts of the closed episode m.
func (s *status) judged(m episode.Manifest, v []episode.Verdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	j := Judged{Episode: m.ID, End: m.End, Verdicts: v}
	s.judgedEps = append([]Judged{j}, s.judgedEps[:min(len(s.judgedEps), recentJudged-1)]...)
}

type sourceState struct {
	State string
	Since time.Time
}

type sheetSnap struct {
	JPEG  []byte
	Index int
	Built time.Time
}

func (s *status) apply(ev episodeEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch ev.kind {
	case episodeBegan:
		s.episode, s.open, s.recent = ev.manifest, true, nil
	case stateChanged:
		if s.states == nil {
			s.states = map[string]sourceState{}
		}
		s.states[ev.transition.Source] = sourceState{State: ev.transition.To, Since: ev.transition.Stamp}
	case segmentClosed:
		s.recent = append(s.recent, ev.segment)
		if len(s.recent) > recentSegments {
			s.recent = s.recent[len(s.recent)-recentSegments:]
		}
	case episodeEnded:
		s.episode, s.open = ev.manifest, false
	}
}

func (s *status) sheetBuilt(camera string, index int, jpeg []byte, now time.Time) {
	cp := append([]byte(nil), jpeg...) // the builder reuses its buffer
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lastSheet == nil {
		s.lastSheet = map[string]sheetSnap{}
	}
	s.lastSheet[camera] = sheetSnap{JPEG: cp, Index: index, Built: now}
}

func (s *status) episodeOpen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.open
}

// view is a copy for rendering.
type statusView struct {
	Episode  episode.Manifest
	Open     bool
	States   []namedState
	Recent   []episode.Segment
	Sheets   []string // cameras with a sheet
	Observed time.Time
	Judged   []Judged // newest first
}

type namedState struct {
	Source string
	sourceState
}

func (s *status) view() statusView {
	s.mu.Lock()
	defer s.mu.Unlock()
	v := statusView{Episode: s.episode, Open: s.open, Recent: append([]episode.Segment(nil), s.recent...),
		Judged: append([]Judged(nil), s.judgedEps...)}
	for src, st := range s.states {
		v.States = append(v.States, namedState{Source: src, sourceState: st})
	}
	sort.Slice(v.States, func(i, j int) bool { return v.States[i].Source < v.States[j].Source })
	for cam := range s.lastSheet {
		v.Sheets = append(v.Sheets, cam)
	}
	sort.Strings(v.Sheets)
	return v
}

func (s *status) sheet(camera string) (sheetSnap, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	snap, ok := s.lastSheet[camera]
	return snap, ok
}

// loopAlive records that the sheet loop went round (unix nanoseconds).
func (d *Daemon) loopAlive() { d.loopBeat.Store(time.Now().UnixNano()) }

// progressing checks that the stages that own state still turn: the sheet
// loop ticked within maxAge, and the fsm loop drains its queue in time.
func (d *Daemon) progressing(ctx context.Context, maxAge time.Duration) error {
	if age := time.Since(time.Unix(0, d.loopBeat.Load())); age > maxAge {
		return fmt.Errorf("sheet loop last ticked %s ago", age.Round(time.Millisecond))
	}
	if d.machine != nil {
		fctx, cancel := context.WithTimeout(ctx, maxAge)
		defer cancel()
		if err := d.machine.Flush(fctx); err != nil {
			return fmt.Errorf("fsm loop does not drain: %w", err)
		}
	}
	return nil
}

// storeProblems are the episode store's health problems for /healthz:
// it cannot write (nothing is being recorded; closed segments wait in
// memory), or it lost segments.
func (d *Daemon) storeProblems() []string {
	if d.store == nil {
		return nil
	}
	var out []string
	if err := d.store.Health(); err != nil {
		out = append(out, err.Error())
	}
	return out
}
