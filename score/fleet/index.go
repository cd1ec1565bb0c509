package fleet

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/score"
)

// maxProblems bounds the problems one refresh keeps.
const maxProblems = 20

// Index is the fleet view of one store kept up to date. It remembers
// each annotation's Result with the size of its file, so a Refresh lists
// the store once and reads and scores only the annotations that are new
// or whose size changed (at most MaxPerRefresh; the rest wait for the
// next), and forgets those deleted. An Index is not safe for concurrent
// use (Watcher owns one in its goroutine).
type Index struct {
	// Score: the encoder and judge (default score's offline ones).
	Score score.Options
	// MaxPerRefresh bounds the annotations one Refresh reads and
	// scores; 0: no bound.
	MaxPerRefresh int

	entries  map[string]entry // EPISODE/NAME
	episodes int              // in the store at the last Refresh
	pending  int
	problems []string
}

type entry struct {
	size int64
	r    Result
}

// Refresh brings the index up to date with store b (rooted at the
// store, as episode.LoadBlobs reads it). full rereads every annotation,
// which a file replaced by one of the same size needs. An error is a
// failed listing, or ctx's when it ends (what was read is kept); what
// one episode or annotation lacks is a problem in the Summary, never
// fatal.
func (ix *Index) Refresh(ctx context.Context, b blob.Blobs, full bool) error {
	list, err := b.List("")
	if err != nil {
		return fmt.Errorf("fleet: list %s: %w", b, err)
	}
	if ix.entries == nil {
		ix.entries = map[string]entry{}
	}
	present, episodes := annotationFiles(list)
	ix.episodes = episodes
	for k := range ix.entries {
		if _, ok := present[k]; !ok {
			delete(ix.entries, k)
		}
	}
	var todo []string
	for k, size := range present {
		if e, ok := ix.entries[k]; full || !ok || e.size != size {
			todo = append(todo, k)
		}
	}
	sort.Strings(todo)
	ix.pending = 0
	if ix.MaxPerRefresh > 0 && len(todo) > ix.MaxPerRefresh {
		ix.pending = len(todo) - ix.MaxPerRefresh
		todo = todo[:ix.MaxPerRefresh]
	}
	ix.problems = nil
	return ix.read(ctx, b, todo, present)
}

// read scores the annotations todo (EPISODE/NAME, sorted), loading each
// episode once, until ctx ends.
func (ix *Index) read(ctx context.Context, b blob.Blobs, todo []string, sizes map[string]int64) error {
	var e *episode.Episode
	var loadErr error
	for _, k := range todo {
		id, name, _ := strings.Cut(k, "/")
		if e == nil || view.EpisodeID(e) != id {
			if err := ctx.Err(); err != nil {
				return err
			}
			if e, loadErr = episode.LoadBlobs(b, id); loadErr != nil {
				ix.problem(fmt.Sprintf("episode %s: %v (its annotations are left out)", id, loadErr))
			}
		}
		if loadErr != nil {
			e = nil
			continue
		}
		ix.entries[k] = entry{size: sizes[k], r: NewResult(e, view.ReadAnnotation(b, e, name, ix.Score))}
	}
	return nil
}

func (ix *Index) problem(p string) {
	if len(ix.problems) < maxProblems {
		ix.problems = append(ix.problems, p)
	}
}

// annotationFiles picks out of a listing of the store the annotation
// files (EPISODE/NAME -> size) and counts the episodes (manifests).
func annotationFiles(list []blob.Info) (files map[string]int64, episodes int) {
	files = map[string]int64{}
	for _, f := range list {
		id, rest, ok := strings.Cut(f.Name, "/")
		if !ok || id == "" || id[0] == '.' {
			continue
		}
		if rest == episode.ManifestFile {
			episodes++
			continue
		}
		dir, base := path.Split(rest)
		if name, ok := strings.CutSuffix(base, ".json"); ok && dir == episode.AnnotationsDir+"/" && name != "" {
			files[id+"/"+name] = f.Size
		}
	}
	return files, episodes
}

// Summary is the fleet view of the index grouped by by (ByModel,
// ByRobot or ByDay).
func (ix *Index) Summary(by string) Summary {
	keys := make([]string, 0, len(ix.entries))
	for k := range ix.entries {
		keys = append(keys, k)
	}
	sort.Strings(keys) // an episode's annotations one after another, as Tally wants
	t := Tally{By: by}
	annotated := map[string]bool{}
	for _, k := range keys {
		r := ix.entries[k].r
		t.Add(&r)
		annotated[r.Episode] = true
	}
	s := Summary{By: by, Encoder: encoderName(ix.Score), Judge: judgeName(ix.Score), Episodes: ix.episodes,
		Annotated: len(annotated), Pending: ix.pending, Problems: append([]string{}, ix.problems...)}
	s.Groups, s.Totals = t.Groups()
	if s.Groups == nil {
		s.Groups, s.Totals = []Group{}, []Group{}
	}
	return s
}

func encoderName(o score.Options) string {
	if o.Encoder == nil {
		return score.HashedNGram().Name()
	}
	return o.Encoder.Name()
}

func judgeName(o score.Options) string {
	if o.Judge == nil {
		return score.LexicalJudge{}.Name()
	}
	return o.Judge.Name()
}

// Scan is the fleet view of store b (rooted at the store) grouped by by,
// scored with o: every annotation read once.
func Scan(ctx context.Context, b blob.Blobs, by string, o score.Options) (Summary, error) {
	if err := CheckBy(by); err != nil {
		return Summary{}, err
	}
	ix := Index{Score: o}
	if err := ix.Refresh(ctx, b, true); err != nil {
		return Summary{}, err
	}
	return ix.Summary(by), nil
}
