package episode

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/edged-robotics/edged/blob"
)

// StoreDir returns the episode store directory for dir: dir/episodes when
// dir is a data_dir that has one, else dir itself.
func StoreDir(dir string) string {
	if st, err := os.Stat(filepath.Join(dir, "episodes")); err == nil && st.IsDir() {
		return filepath.Join(dir, "episodes")
	}
	return dir
}

// List returns the manifests of every episode in the store, oldest
// first. A corrupt or missing manifest beside records is rebuilt from
// them (Manifest.Problem says so); directories with neither (a crash
// between mkdir and the first manifest) and manifests of another format
// are skipped.
func List(dir string) ([]Manifest, error) {
	var out []Manifest
	err := eachManifest(dir, func(m Manifest) { out = append(out, m) })
	if err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return listedBefore(out[i].Start, out[i].ID, out[j].Start, out[j].ID) })
	return out, nil
}

// IDs are the ids of the episodes List lists, in its order, read one
// manifest at a time: a store-wide command over thousands of episodes
// holds ids, not manifests, and loads each episode when it gets to it.
func IDs(dir string) ([]string, error) {
	type ref struct {
		start time.Time
		id    string
	}
	var refs []ref
	err := eachManifest(dir, func(m Manifest) { refs = append(refs, ref{m.Start, m.ID}) })
	if err != nil {
		return nil, err
	}
	sort.SliceStable(refs, func(i, j int) bool { return listedBefore(refs[i].start, refs[i].id, refs[j].start, refs[j].id) })
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.id
	}
	return out, nil
}

// listedBefore is List's order: by start, then id.
func listedBefore(startA time.Time, idA string, startB time.Time, idB string) bool {
	if !startA.Equal(startB) {
		return startA.Before(startB)
	}
	return idA < idB
}

// eachManifest calls fn with the manifest of every episode directory in
// dir (its ID the directory's name), skipping those without a readable
// one.
func eachManifest(dir string, fn func(Manifest)) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("episode: list %s: %w", dir, err)
	}
	for _, e := range ents {
		if !e.IsDir() || e.Name()[0] == '.' {
			continue
		}
		m, err := loadManifest(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		m.ID = e.Name()
		fn(m)
	}
	return nil
}

// Episode is one episode as read from disk.
type Episode struct {
	Manifest    Manifest
	Dir         string
	Segments    []Segment
	Transitions []Transition
	// Problems found while reading (corrupt records, a torn tail of an
	// episode still being written); reading never modifies the store.
	Problems []string
	// Cost is the cost line of the directory's files (ReadCost).
	Cost Cost
	// Lack is what a receiver lacks of an episode its end manifest
	// closed but that is not complete (the first maxListedLacks pieces);
	// nil otherwise.
	Lack *Lack
	// Clips are the episode's incident clips (clips/), by trigger time.
	Clips []Clip
}

// maxListedLacks bounds the pieces Load lists as lacking.
const maxListedLacks = 64

// Load reads one episode. ref is an episode directory, or an id (or a
// unique id prefix) inside store dir (which may be "").
func Load(dir, ref string) (*Episode, error) {
	epDir, err := Resolve(dir, ref)
	if err != nil {
		return nil, err
	}
	return loadEpisode(dirFiles(epDir))
}

// loadEpisode is Load of an episode's files wherever they are: its
// manifest, one listing, its two record files and the sheet metadata
// the cost line counts.
func loadEpisode(f episodeFiles) (*Episode, error) {
	m, err := loadManifestOf(f)
	if err != nil {
		return nil, fmt.Errorf("episode: %s: %w", f.where, err)
	}
	m.ID = f.id
	e := &Episode{Manifest: m, Dir: f.where}
	if m.Problem != "" {
		e.Problems = append(e.Problems, m.Problem)
	}
	files, err := f.list()
	if err == nil {
		e.Clips = clipsOf(files)
		e.Cost, err = costOfFiles(files, func(rel string) ([]byte, error) { return f.read(rel, maxSheetMeta) }, &m)
	}
	if err != nil {
		e.Problems = append(e.Problems, fmt.Sprintf("cost line: %v", err))
	}
	segRecs := e.readRecords(f, segmentsName)
	trRecs := e.readRecords(f, transitionsName)
	var bad, bad2 int
	e.Segments, bad = DecodeRecords[Segment](segRecs)
	e.Transitions, bad2 = DecodeRecords[Transition](trRecs)
	if bad+bad2 > 0 {
		e.Problems = append(e.Problems, fmt.Sprintf("%d records with a good checksum but bad JSON skipped", bad+bad2))
	}
	sort.SliceStable(e.Segments, func(i, j int) bool { return e.Segments[i].Start.Before(e.Segments[j].Start) })
	if m.Held != nil && !m.Complete && err == nil {
		e.Manifest.Held = e.held(files)
		if m.Closed {
			e.Lack = e.lack(files)
		}
	}
	return e, nil
}

// held counts what a receiver holds of an episode it has not completed:
// its manifest's Held is written only with the robot's start and end
// manifests and when the episode completes (Receiver.commit), so until
// then the files present say more.
func (e *Episode) held(files []blob.Info) *Held {
	idx := map[int]bool{}
	for _, s := range e.Segments {
		idx[s.Index] = true
	}
	h := HeldOf(blobNames(files, ""), len(idx))
	return &h
}

// lack lists what a receiver lacks of the closed, incomplete e.
func (e *Episode) lack(files []blob.Info) *Lack {
	segs := map[int]bool{}
	for _, s := range e.Segments {
		segs[s.Index] = true
	}
	l := &Lack{Closed: true, Since: e.Manifest.EndArrived}
	l.Pieces, l.More = LacksOf(&e.Manifest, func(i int) bool { return segs[i] }, blobNames(files, ""), maxListedLacks)
	return l
}

func (e *Episode) readRecords(f episodeFiles, name string) [][]byte {
	b, err := f.read(name, MaxFileBytes)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			e.Problems = append(e.Problems, fmt.Sprintf("%s: %v", name, err))
		}
		return nil
	}
	sc, err := ScanRecords(b)
	if err != nil {
		e.Problems = append(e.Problems, fmt.Sprintf("%s: %v", name, err))
		return nil
	}
	for _, r := range sc.Bad {
		e.Problems = append(e.Problems, fmt.Sprintf("%s: corrupt %s skipped", name, r))
	}
	if sc.Torn.Len > 0 {
		what := "torn tail"
		if !e.Manifest.Closed {
			what = "incomplete tail (being written, or torn by a crash)"
		}
		e.Problems = append(e.Problems, fmt.Sprintf("%s: %s of %s ignored", name, what, sc.Torn))
	}
	return sc.Records
}

// Resolve returns the directory of episode ref: an episode directory, or
// in store dir an id or a unique prefix of one.
func Resolve(dir, ref string) (string, error) {
	if IsEpisodeDir(ref) {
		return ref, nil
	}
	if dir == "" || filepath.Base(ref) != ref { // a path, never an id (ids have no '/'): not dir's to blame
		if _, err := os.Stat(ref); err != nil {
			return "", fmt.Errorf("episode: %w (give an episode directory, a data_dir or an episode id)", err)
		}
		return "", fmt.Errorf("episode: %s is not an episode directory (no %s)", ref, manifestName)
	}
	if IsEpisodeDir(filepath.Join(dir, ref)) {
		return filepath.Join(dir, ref), nil
	}
	ms, err := List(dir)
	if err != nil {
		return "", err
	}
	var hits []string
	for _, m := range ms {
		if len(m.ID) >= len(ref) && m.ID[:len(ref)] == ref {
			hits = append(hits, m.ID)
		}
	}
	switch len(hits) {
	case 1:
		return filepath.Join(dir, hits[0]), nil
	case 0:
		return "", fmt.Errorf("episode: no episode %q in %s (edged inspect lists them)", ref, dir)
	default:
		return "", fmt.Errorf("episode: %q matches %d episodes in %s: give more of the id", ref, len(hits), dir)
	}
}

// IsEpisodeDir reports whether dir is one episode: it holds a manifest or
// record files.
func IsEpisodeDir(dir string) bool {
	for _, n := range []string{manifestName, segmentsName, transitionsName} {
		if st, err := os.Stat(filepath.Join(dir, n)); err == nil && !st.IsDir() {
			return true
		}
	}
	return false
}
