package episode

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"

	"github.com/edged-robotics/edged/internal/fsutil"
)

// errNoEpisode: a directory with neither a manifest nor records (a crash
// between mkdir and the first manifest).
var errNoEpisode = errors.New("not an episode directory (no manifest, no records)")

// errFormat: a manifest of another format version (a newer edged); it is
// left alone, never rebuilt.
var errFormat = errors.New("manifest format")

// loadManifest reads the manifest of the episode directory dir. A corrupt
// or missing manifest beside record files is rebuilt from the records
// (read-only: nothing is written), with Manifest.Problem saying so, so
// that an episode whose records are intact is never hidden from inspect,
// retention or recovery.
func loadManifest(dir string) (Manifest, error) { return loadManifestOf(dirFiles(dir)) }

// loadManifestOf is loadManifest of an episode's files wherever they are.
func loadManifestOf(f episodeFiles) (Manifest, error) {
	m, err := readManifestOf(f)
	if err == nil || errors.Is(err, errFormat) {
		return m, err
	}
	missing := errors.Is(err, os.ErrNotExist)
	if missing && !f.exists(segmentsName) && !f.exists(transitionsName) {
		return m, errNoEpisode
	}
	m = rebuildManifestOf(f)
	if missing {
		m.Problem = manifestName + " missing: rebuilt from the records"
	} else {
		m.Problem = fmt.Sprintf("%s corrupt (%v): rebuilt from the records", manifestName, err)
	}
	return m, nil
}

func readManifest(dir string) (Manifest, error) { return readManifestOf(dirFiles(dir)) }

func readManifestOf(f episodeFiles) (Manifest, error) {
	var m Manifest
	b, err := f.read(manifestName, maxManifest)
	if err != nil {
		return m, fmt.Errorf("episode: %w", err)
	}
	if m, err = decodeManifest(b); err != nil {
		return m, fmt.Errorf("episode: %s: %w", f.where, err)
	}
	return m, nil
}

// decodeManifest parses a manifest.json of the format this edged reads
// (the robot's store and a receiver's alike).
func decodeManifest(b []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("corrupt manifest: %w", err)
	}
	if m.Format != ManifestFormat {
		return m, fmt.Errorf("%w %d, this edged reads %d", errFormat, m.Format, ManifestFormat)
	}
	return m, nil
}

func writeManifest(dir string, m Manifest) error {
	m.Problem = ""
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("episode: manifest: %w", err)
	}
	return fsutil.WriteFileAtomic(filepath.Join(dir, manifestName), append(b, '\n'))
}

// idPattern splits an id made by Store.Begin: robot-start[-name].
var idPattern = regexp.MustCompile(`^(?:(.*)-)?(\d{8}T\d{6}\.\d{3}Z)`)

// rebuildManifestOf derives an open manifest from an episode's id and its
// records: the start from the first transition (its stamp minus its
// episode seconds) or segment, else from the id. Recovery then closes it
// as interrupted.
func rebuildManifestOf(f episodeFiles) Manifest {
	id := f.id
	m := Manifest{Format: ManifestFormat, ID: id}
	if g := idPattern.FindStringSubmatch(id); g != nil {
		m.Robot = g[1]
		if t, err := time.Parse("20060102T150405.000Z", g[2]); err == nil {
			m.Start = t
		}
	}
	segs, _ := decodeAll[Segment](readRecordsQuiet(f, segmentsName))
	trans, _ := decodeAll[Transition](readRecordsQuiet(f, transitionsName))
	m.Segments, m.Transitions = len(segs), len(trans)
	switch {
	case len(trans) > 0:
		m.Start = trans[0].Stamp.Add(-time.Duration(trans[0].Sec * float64(time.Second)))
	case len(segs) > 0:
		m.Start = segs[0].Start.Add(-time.Duration(segs[0].StartSec * float64(time.Second)))
	}
	m.Created = f.created()
	return m
}

func readRecordsQuiet(f episodeFiles, name string) [][]byte {
	b, err := f.read(name, maxFileBytes)
	if err != nil {
		return nil
	}
	sc, _ := scanRecords(b) // a file of a newer format has no records for us
	return sc.Records
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// quarantineManifest moves a corrupt manifest.json into quarantine/ so
// that recovery can write a rebuilt one (a missing one has nothing to
// keep).
func quarantineManifest(dir string) (string, error) {
	src := filepath.Join(dir, manifestName)
	if !exists(src) {
		return "", nil
	}
	qdir := filepath.Join(dir, quarantineName)
	if err := os.MkdirAll(qdir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(qdir, manifestName+".corrupt")
	if err := os.Rename(src, dst); err != nil {
		return "", err
	}
	return filepath.Join(quarantineName, manifestName+".corrupt"), fsutil.SyncDir(dir)
}
