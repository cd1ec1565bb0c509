package episode

import (
	"encoding/json"
	"fmt"
	"github.com/edged-robotics/edged/internal/fsutil"
	"os"
	"path/filepath"
	"time"
)

// recoverAll closes every episode left open.
func (s *Store) recoverAll() error {
	ms, err := List(s.dir)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.Closed {
			continue
		}
		r, err := recoverEpisode(filepath.Join(s.dir, m.ID), m)
		if err != nil {
			return fmt.Errorf("episode: recover %s: %w", m.ID, err)
		}
		s.recovered = append(s.recovered, r)
	}
	return nil
}

// repairFile cuts a torn tail and quarantines corrupt regions of one
// record file, rewriting it atomically when anything was wrong, and
// returns the surviving payloads.
func repairFile(dir, name string, r *Recovery) ([][]byte, error) {
	path := filepath.Join(dir, name)
	b, err := fsutil.ReadFileCapped(path, maxFileBytes)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sc := scanRecords(b)
	if len(sc.Bad) == 0 && sc.Torn.Len == 0 {
		return sc.Records, nil
	}
	qdir := filepath.Join(dir, quarantineName)
	if err := os.MkdirAll(qdir, 0o755); err != nil {
		return nil, err
	}
	save := func(kind string, reg badRegion) error {
		r.Descriptions = append(r.Descriptions, fmt.Sprintf("%s: %s %s, saved in %s/", name, kind, reg, quarantineName))
		qn := fmt.Sprintf("%s.%d.%s", name, reg.Off, kind)
		return fsutil.WriteFileAtomic(filepath.Join(qdir, qn), b[reg.Off:reg.Off+reg.Len])
	}
	for _, reg := range sc.Bad {
		r.Quarantined++
		if err := save("corrupt", reg); err != nil {
			return nil, err
		}
	}
	if sc.Torn.Len > 0 {
		r.TornBytes += sc.Torn.Len
		if err := save("torn", sc.Torn); err != nil {
			return nil, err
		}
	}
	var clean []byte
	for _, p := range sc.Records {
		clean = appendRecord(clean, p)
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, name), clean); err != nil {
		return nil, err
	}
	return sc.Records, nil
}

// recoverEpisode repairs the record files of an open episode and closes
// it as interrupted, closing its open segments at the last time seen.
func recoverEpisode(dir string, m Manifest) (Recovery, error) {
	r := Recovery{Episode: m.ID, ClosedOpen: true}
	segRecs, err := repairFile(dir, segmentsName, &r)
	if err != nil {
		return r, err
	}
	trRecs, err := repairFile(dir, transitionsName, &r)
	if err != nil {
		return r, err
	}
	segs, bad := decodeAll[Segment](segRecs)
	trans, bad2 := decodeAll[Transition](trRecs)
	if bad+bad2 > 0 {
		r.Descriptions = append(r.Descriptions, fmt.Sprintf("%d records with a good checksum but bad JSON skipped", bad+bad2))
	}
	last := m.Start
	closed := map[string]bool{}
	for _, s := range segs {
		closed[openKey(s.Source, s.Label, s.Start)] = true
		if s.End.After(last) {
			last = s.End
		}
	}
	for _, t := range trans {
		if t.Stamp.After(last) {
			last = t.Stamp
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, segmentsName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return r, err
	}
	w := &Writer{dir: dir, m: m, segs: f}
	w.m.Segments = len(segs)
	w.m.Transitions = len(trans)
	// Still-open segments: the last opening transition per (source, goal
	// or path) that no closed segment accounts for. A later opening of
	// the same source closes the earlier one in the FSM, so only segments
	// opened and never closed remain.
	for _, t := range openAtCrash(trans, closed) {
		s := Segment{Start: t.opened(), End: last, StartSec: sec(m.Start, t.opened()), EndSec: sec(m.Start, last),
			Label: t.Opens, Path: t.Path, Source: t.Source, Kind: t.SrcTyp, Outcome: Interrupted, GoalID: t.GoalID}
		s.Index = w.m.Segments
		if err := w.append(f, s); err != nil {
			f.Close()
			return r, err
		}
		w.m.Segments++
		r.Interrupted++
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return r, err
	}
	f.Close()
	w.m.Closed, w.m.End, w.m.Outcome, w.m.EndReason = true, last, Interrupted, EndRecovered
	rc := r
	w.m.Recovery = &rc
	return r, w.writeManifest()
}

// openAtCrash returns the opening transitions whose segment never closed.
// Segments of one source that is not actionlib are sequential, so a
// source has at most one open segment: the one its last opening started,
// if that one is not closed; goals and SMACH leaves may overlap, keyed by
// goal id or state path.
func openAtCrash(trans []Transition, closed map[string]bool) []Transition {
	last := map[string]Transition{}
	var order []string
	for _, t := range trans {
		if t.Opens == "" {
			continue
		}
		k := t.Source + "\x00" + t.GoalID + "\x00" + t.Path
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = t
	}
	var out []Transition
	for _, k := range order {
		t := last[k]
		if !closed[openKey(t.Source, t.Opens, t.opened())] {
			out = append(out, t)
		}
	}
	return out
}

// opened is when the segment a transition opens started.
func (t Transition) opened() time.Time {
	if t.Start.IsZero() {
		return t.Stamp
	}
	return t.Start
}

func openKey(source, label string, start time.Time) string {
	return fmt.Sprintf("%s\x00%s\x00%d", source, label, start.UnixNano())
}

func sec(start, t time.Time) float64 { return t.Sub(start).Seconds() }

func decodeAll[T any](recs [][]byte) ([]T, int) {
	out := make([]T, 0, len(recs))
	bad := 0
	for _, p := range recs {
		var v T
		if err := json.Unmarshal(p, &v); err != nil {
			bad++
			continue
		}
		out = append(out, v)
	}
	return out, bad
}
