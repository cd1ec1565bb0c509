package episode

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"
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

// ReadManifest reads the manifest of the episode directory dir as it is
// stored (an error when it is missing or corrupt: nothing is rebuilt).
func ReadManifest(dir string) (Manifest, error) { return readManifestOf(dirFiles(dir)) }

func readManifestOf(f episodeFiles) (Manifest, error) {
	var m Manifest
	b, err := f.read(manifestName, MaxManifestBytes)
	if err != nil {
		return m, fmt.Errorf("episode: %w", err)
	}
	if m, err = DecodeManifest(b); err != nil {
		return m, fmt.Errorf("episode: %s: %w", f.where, err)
	}
	return m, nil
}

// DecodeManifest parses a manifest.json of the format this edged reads
// (the robot's store and a receiver's alike).
func DecodeManifest(b []byte) (Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("corrupt manifest: %w", err)
	}
	if m.Format != ManifestFormat {
		return m, fmt.Errorf("%w %d, this edged reads %d", errFormat, m.Format, ManifestFormat)
	}
	return m, nil
}

// EncodeManifest is m as manifest.json holds it, wherever it is written
// (a robot's store, a receiver's). Problem is a reader's and never
// stored.
func EncodeManifest(m Manifest) ([]byte, error) {
	m.Problem = ""
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("episode: manifest: %w", err)
	}
	return append(b, '\n'), nil
}

// rebuildManifestOf derives an open manifest from an episode's id and its
// records: the start from the first transition (its stamp minus its
// episode seconds) or segment, else from the id. Recovery then closes it
// as interrupted.
func rebuildManifestOf(f episodeFiles) Manifest {
	id := f.id
	m := Manifest{Format: ManifestFormat, ID: id}
	if robot, start, ok := splitID(id); ok {
		m.Robot, m.Start = robot, start
	}
	segs, _ := DecodeRecords[Segment](readRecordsQuiet(f, segmentsName))
	trans, _ := DecodeRecords[Transition](readRecordsQuiet(f, transitionsName))
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
	b, err := f.read(name, MaxFileBytes)
	if err != nil {
		return nil
	}
	sc, _ := ScanRecords(b) // a file of a newer format has no records for us
	return sc.Records
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
