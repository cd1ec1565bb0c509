package episode

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/edged-robotics/edged/blob"
)

// ListBlobs is List of a store kept in blobs (b rooted at the store:
// its episodes/, blob.Sub of a data_dir's): one listing of the store,
// then each episode's manifest (and its records only when the manifest
// is missing or corrupt), so no copy of the store on disk is needed.
func ListBlobs(b blob.Blobs) ([]Manifest, error) {
	var out []Manifest
	if err := eachBlobManifest(b, func(m Manifest) { out = append(out, m) }); err != nil {
		return nil, err
	}
	sort.SliceStable(out, func(i, j int) bool { return listedBefore(out[i].Start, out[i].ID, out[j].Start, out[j].ID) })
	return out, nil
}

// IDsBlobs is IDs of a store kept in blobs: the ids ListBlobs lists, in
// its order, without holding their manifests.
func IDsBlobs(b blob.Blobs) ([]string, error) {
	var refs []Manifest
	err := eachBlobManifest(b, func(m Manifest) { refs = append(refs, Manifest{ID: m.ID, Start: m.Start}) })
	if err != nil {
		return nil, err
	}
	sort.SliceStable(refs, func(i, j int) bool { return listedBefore(refs[i].Start, refs[i].ID, refs[j].Start, refs[j].ID) })
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.ID
	}
	return out, nil
}

// eachBlobManifest is eachManifest of a store kept in blobs.
func eachBlobManifest(b blob.Blobs, fn func(Manifest)) error {
	ids, err := blobEpisodes(b)
	if err != nil {
		return err
	}
	for _, id := range ids {
		m, err := loadManifestOf(blobFiles(b, id))
		if err != nil {
			continue // as List: neither a manifest of this format nor records
		}
		m.ID = id
		fn(m)
	}
	return nil
}

// LoadBlobs is Load of episode ref (an id, or a unique prefix of one)
// of the store in b: for an id, its manifest's size, its manifest, one
// listing of the episode and its two record files, and the metadata of
// those sheets whose tokens the manifest does not give (costOfFiles);
// the sheets themselves are not read. Episode.Dir names the episode in
// b.
func LoadBlobs(b blob.Blobs, ref string) (*Episode, error) {
	id, err := resolveBlobs(b, ref)
	if err != nil {
		return nil, err
	}
	return loadEpisode(blobFiles(b, id))
}

// resolveBlobs is Resolve in a store kept in blobs.
func resolveBlobs(b blob.Blobs, ref string) (string, error) {
	if ref == "" || strings.ContainsAny(ref, "/\x00") || strings.HasPrefix(ref, ".") {
		return "", fmt.Errorf("episode: %q is not an episode id (give an id or a unique prefix of one)", ref)
	}
	if IsEpisodeIn(b, ref) {
		return ref, nil
	}
	ids, err := blobEpisodes(b)
	if err != nil {
		return "", err
	}
	var hits []string
	for _, id := range ids {
		if strings.HasPrefix(id, ref) {
			hits = append(hits, id)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return "", fmt.Errorf("episode: no episode %q in %s (edged inspect lists them)", ref, b)
	default:
		return "", fmt.Errorf("episode: %q matches %d episodes in %s: give more of the id", ref, len(hits), b)
	}
}

// IsEpisodeIn reports whether id is an episode of the store in b: it
// holds a manifest or record files (IsEpisodeDir in blobs).
func IsEpisodeIn(b blob.Blobs, id string) bool {
	f := blobFiles(b, id)
	for _, n := range []string{manifestName, segmentsName, transitionsName} {
		if f.exists(n) {
			return true
		}
	}
	return false
}

// blobEpisodes are the ids of the episodes of the store in b, sorted:
// the prefixes that hold a manifest or a record file, as IsEpisodeDir
// has it (dot names, a sink's own files, are not episodes).
func blobEpisodes(b blob.Blobs) ([]string, error) {
	list, err := b.List("")
	if err != nil {
		return nil, fmt.Errorf("episode: list %s: %w", b, err)
	}
	seen := map[string]bool{}
	var ids []string
	for _, f := range list {
		id, rest, ok := strings.Cut(f.Name, "/")
		if !ok || id == "" || id[0] == '.' || strings.Contains(rest, "/") || !isRecordFile(rest) || seen[id] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// OpenDir is the episode directory dir as the blob readers read it:
// its store's blobs (blob.Dir of its parent) and its id, so a reader
// of an episode's files (report, dataset) reads a directory and an
// object store alike.
func OpenDir(dir string) (store blob.Blobs, id string, err error) {
	if !IsEpisodeDir(dir) {
		if _, err := os.Stat(dir); err != nil {
			return nil, "", fmt.Errorf("episode: %w (give an episode directory, a data_dir or an episode id)", err)
		}
		return nil, "", fmt.Errorf("episode: %s is not an episode directory (no %s)", dir, manifestName)
	}
	dir = filepath.Clean(dir)
	return blob.Dir{Root: filepath.Dir(dir)}, filepath.Base(dir), nil
}

// CostIn is the cost line (ReadCost) of episode id of the store in b,
// whose files (named relative to the episode) are listed: a receiver's
// line of what it holds, reading only the metadata of its sheets.
func CostIn(b blob.Blobs, id string, files []blob.Info, m *Manifest) (Cost, error) {
	f := blobFiles(b, id)
	return costOfFiles(files, func(rel string) ([]byte, error) { return f.read(rel, maxSheetMeta) }, m)
}
