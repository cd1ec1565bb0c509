package tracecheck

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
)

// EpisodeReport is one episode's part of a check's report.
type EpisodeReport struct {
	ID          string    `json:"episode"`
	Robot       string    `json:"robot"`
	Start       time.Time `json:"start"`
	Instruction string    `json:"instruction,omitempty"`
	Results     []Result  `json:"results"`
	// Problems found reading the episode (episode.Episode.Problems):
	// the text report's warnings.
	Problems []string `json:"problems"`
}

// Reporter takes a check's report as Check makes it: each episode as
// it is judged, then the summary (nil for one episode) and the
// episodes left out. Nothing need hold more than one episode: a
// fleet's store holds thousands.
type Reporter interface {
	Episode(e EpisodeReport) error
	End(summary *Summary, skipped []string) error
}

// Loader reads the episode ref (an id or an episode directory) of the
// episode store dir; episode.Load is the one to use, tests give others.
type Loader func(dir, ref string) (*episode.Episode, error)

// Check evaluates r over the episode ref names (an episode directory,
// or an id or unique id prefix in the data_dir or store dir), or over
// every episode of the store ref is, with the summary (CheckStore). It
// returns the UNSAT verdicts. It never writes the store.
func (r *Rules) Check(dir, ref string, load Loader, out Reporter) (unsat int, err error) {
	if st, err := os.Stat(ref); err == nil && st.IsDir() && !hasManifest(ref) {
		return r.CheckStore(ref, load, out)
	}
	e, err := load(episode.StoreDir(dir), ref)
	if err != nil {
		return 0, err
	}
	return r.checkOne(e, out)
}

// checkOne reports r over one episode, with no summary.
func (r *Rules) checkOne(e *episode.Episode, out Reporter) (unsat int, err error) {
	rep, _ := r.Report(e)
	unsat = countUnsat(rep.Results)
	if err := out.Episode(rep); err != nil {
		return unsat, err
	}
	return unsat, out.End(nil, nil)
}

// CheckStore evaluates r over every episode of store (a data_dir or an
// episode store), loading one at a time and handing its report to out
// before the next: memory stays flat in the store's size (the store's
// ids, and a count per check and robot or day, are all it keeps). An
// episode deleted between listing and reading (a live robot's
// retention) is left out and named; any other unreadable episode is an
// error (what was judged before it is already out). It returns the
// UNSAT verdicts.
func (r *Rules) CheckStore(store string, load Loader, out Reporter) (unsat int, err error) {
	sd := episode.StoreDir(store)
	ids, err := episode.IDs(sd)
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("check: no episodes in %s: give an episode directory or a store that holds some", sd)
	}
	gone := func(id string) bool {
		_, err := os.Stat(filepath.Join(sd, id))
		return errors.Is(err, fs.ErrNotExist)
	}
	return r.checkEach(ids, func(id string) (*episode.Episode, error) { return load(sd, id) }, gone, out)
}

// CheckBlobs is Check of a store kept in blobs (b rooted at the store),
// read where it is (episode.LoadBlobs): the episode ref (an id or a
// unique prefix), or with ref "" every episode, as CheckStore.
func (r *Rules) CheckBlobs(b blob.Blobs, ref string, out Reporter) (unsat int, err error) {
	load := func(id string) (*episode.Episode, error) { return episode.LoadBlobs(b, id) }
	if ref != "" {
		e, err := load(ref)
		if err != nil {
			return 0, err
		}
		return r.checkOne(e, out)
	}
	ids, err := episode.IDsBlobs(b)
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("check: no episodes in %s: give an episode or a store that holds some", b)
	}
	gone := func(id string) bool { return !episode.IsEpisodeIn(b, id) }
	return r.checkEach(ids, load, gone, out)
}

// checkEach is the loop of CheckStore over ids: an episode gone
// (deleted since listed) is left out and named.
func (r *Rules) checkEach(ids []string, load func(id string) (*episode.Episode, error), gone func(id string) bool, out Reporter) (unsat int, err error) {
	var tally Tally
	var skipped []string
	for _, id := range ids {
		e, err := load(id)
		if err != nil {
			if gone(id) {
				skipped = append(skipped, id)
				continue
			}
			return unsat, err
		}
		rep, m := r.Report(e)
		unsat += countUnsat(rep.Results)
		if err := out.Episode(rep); err != nil {
			return unsat, err
		}
		tally.Add(m)
	}
	s := tally.Summary()
	return unsat, out.End(&s, skipped)
}

// Report evaluates r over e: the episode's report, and e's manifest
// with their verdicts (what Tally adds up).
func (r *Rules) Report(e *episode.Episode) (EpisodeReport, episode.Manifest) {
	res := r.Evaluate(e)
	m := e.Manifest
	m.Verdicts = Verdicts(res)
	return EpisodeReport{ID: m.ID, Robot: m.Robot, Start: m.Start, Instruction: m.Instruction,
		Results: nonNil(res), Problems: nonNil(e.Problems)}, m
}

func countUnsat(rs []Result) (n int) {
	for _, r := range rs {
		if !r.Sat {
			n++
		}
	}
	return n
}

func hasManifest(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, episode.ManifestFile))
	return err == nil
}

// nonNil makes an empty list print as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
