package store

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/fsm/fsmkind"
	"github.com/edged-robotics/edged/internal/fsutil"
)

// recoverAll closes every episode left open (also one whose manifest was
// corrupt or missing: the bad manifest goes to quarantine/ and one
// rebuilt from the records replaces it) and removes empty episode
// directories (a crash, or a full disk, between mkdir and the manifest).
func (s *Store) recoverAll() error {
	s.removeEmptyDirs()
	ms, err := episode.List(s.dir)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.Closed {
			continue
		}
		dir := filepath.Join(s.dir, m.ID)
		var notes []string
		if m.Problem != "" {
			q, err := quarantineManifest(dir)
			if err != nil {
				return fmt.Errorf("episode: recover %s: quarantine its manifest: %w", m.ID, err)
			}
			if q != "" {
				notes = append(notes, m.Problem+", the corrupt one saved as "+q)
			} else {
				notes = append(notes, m.Problem)
			}
		}
		r, err := recoverEpisode(dir, m, notes)
		if err != nil {
			return fmt.Errorf("episode: recover %s: %w", m.ID, err)
		}
		s.recovered = append(s.recovered, r)
	}
	return nil
}

// removeEmptyDirs removes episode directories that hold nothing.
func (s *Store) removeEmptyDirs() {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if e.IsDir() && e.Name()[0] != '.' {
			_ = os.Remove(filepath.Join(s.dir, e.Name())) // fails unless empty
		}
	}
}

// repairFile cuts a torn tail and quarantines corrupt regions of one
// record file, rewriting it atomically when anything was wrong, and
// returns the surviving payloads.
func repairFile(dir, name string, r *episode.Recovery) ([][]byte, error) {
	path := filepath.Join(dir, name)
	b, err := fsutil.ReadFileCapped(path, episode.MaxFileBytes)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	sc, err := episode.ScanRecords(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(sc.Bad) == 0 && sc.Torn.Len == 0 {
		return sc.Records, nil
	}
	qdir := filepath.Join(dir, episode.QuarantineDir)
	if err := os.MkdirAll(qdir, 0o755); err != nil {
		return nil, err
	}
	save := func(kind string, reg episode.Region) error {
		r.Descriptions = append(r.Descriptions, fmt.Sprintf("%s: %s %s, saved in %s/", name, kind, reg, episode.QuarantineDir))
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
	var clean []byte // a file written before headers gets one now
	for _, p := range sc.Records {
		if clean, err = episode.AppendRecord(clean, int64(len(clean)), p); err != nil {
			return nil, err
		}
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, name), clean); err != nil {
		return nil, err
	}
	return sc.Records, nil
}

// recoverEpisode repairs the record files of an open episode and closes
// it as interrupted, closing its open segments at the last time seen.
func recoverEpisode(dir string, m episode.Manifest, notes []string) (episode.Recovery, error) {
	r := episode.Recovery{Episode: m.ID, ClosedOpen: true, Descriptions: notes}
	segRecs, err := repairFile(dir, episode.SegmentsFile, &r)
	if err != nil {
		return r, err
	}
	trRecs, err := repairFile(dir, episode.TransitionsFile, &r)
	if err != nil {
		return r, err
	}
	segs, bad := episode.DecodeRecords[episode.Segment](segRecs)
	trans, bad2 := episode.DecodeRecords[episode.Transition](trRecs)
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
	f, size, err := openRecordFile(filepath.Join(dir, episode.SegmentsFile))
	if err != nil {
		return r, err
	}
	w := &Writer{dir: dir, m: m, segs: f, segsSize: size}
	w.m.Segments = len(segs)
	w.m.Transitions = len(trans)
	for _, s := range rebuild(m.Start, last, trans, closed) {
		s.Index = w.m.Segments
		if err := w.append(f, &w.segsSize, s); err != nil {
			f.Close()
			return r, err
		}
		w.m.Segments++
		if s.Outcome == episode.Interrupted {
			r.Interrupted++
		} else {
			r.Rebuilt++
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return r, err
	}
	f.Close()
	w.m.Closed, w.m.End, w.m.Outcome, w.m.EndReason = true, last, episode.OutcomeOf(episode.EndRecovered), episode.EndRecovered
	rc := r
	w.m.Recovery = &rc
	return r, w.writeManifest()
}

// rebuild returns the segments the transitions say existed but that no
// closed segment accounts for (a short segments file, or segments still
// open at the crash). Segments of a string or field source are
// sequential: each state transition of the source ends the segment its
// previous opening started, at its stamp, so such a segment is rebuilt
// as completed with its true end; only the last one is open at the
// crash, and it ends, interrupted, at last. SMACH leaves and actionlib
// goals may overlap and their transitions do not say when they ended:
// the last opening per state path or goal that is not closed ends,
// interrupted, at last, with the goal's arguments from its opening or
// a later TransitionGoal.
func rebuild(start, last time.Time, trans []episode.Transition, closed map[string]bool) []episode.Segment {
	var out []episode.Segment
	add := func(t episode.Transition, end time.Time, outcome string) {
		if closed[openKey(t.Source, t.Opens, opened(t))] {
			return
		}
		if end.Before(opened(t)) {
			end = opened(t)
		}
		out = append(out, episode.Segment{Start: opened(t), End: end, StartSec: sec(start, opened(t)), EndSec: sec(start, end),
			Label: t.Opens, Path: t.Path, Source: t.Source, Kind: t.SrcTyp, Outcome: outcome, GoalID: t.GoalID, Args: t.Args})
	}
	openSeq := map[string]*episode.Transition{} // sequential source -> its open segment's opening
	lastOpen := map[string]episode.Transition{} // overlapping: source, goal, path -> last opening
	var order []string
	for _, t := range trans {
		if t.Kind == episode.TransitionHeartbeat {
			continue
		}
		if fsmkind.Sequential(t.SrcTyp) {
			if o := openSeq[t.Source]; o != nil {
				add(*o, t.Stamp, episode.Completed)
				delete(openSeq, t.Source)
			}
			if t.Opens != "" {
				openSeq[t.Source] = &t
			}
			continue
		}
		k := t.Source + "\x00" + t.GoalID + "\x00" + t.Path
		if t.Kind == episode.TransitionGoal { // the arguments of an open goal
			if o, ok := lastOpen[k]; ok && o.Args == nil {
				o.Args = t.Args
				lastOpen[k] = o
			}
			continue
		}
		if t.Opens == "" {
			continue
		}
		if _, ok := lastOpen[k]; !ok {
			order = append(order, k)
		}
		lastOpen[k] = t
	}
	for _, t := range trans { // the open sequential segments, in opening order
		if o := openSeq[t.Source]; o != nil && o.Seq == t.Seq && o.Stamp.Equal(t.Stamp) {
			add(*o, last, episode.Interrupted)
			delete(openSeq, t.Source)
		}
	}
	for _, k := range order {
		add(lastOpen[k], last, episode.Interrupted)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}

// opened is when the segment transition t opens started.
func opened(t episode.Transition) time.Time {
	if t.Start.IsZero() {
		return t.Stamp
	}
	return t.Start
}

func openKey(source, label string, start time.Time) string {
	return fmt.Sprintf("%s\x00%s\x00%d", source, label, start.UnixNano())
}

func sec(start, t time.Time) float64 { return t.Sub(start).Seconds() }
