package store

import (
	"os"
	"path/filepath"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fsutil"
)

// writeManifest replaces dir's manifest.json atomically (write a
// temporary file, fsync, rename, fsync the directory).
func writeManifest(dir string, m episode.Manifest) error {
	b, err := episode.EncodeManifest(m)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(filepath.Join(dir, episode.ManifestFile), b)
}

// quarantineManifest moves a corrupt manifest.json into quarantine/ so
// that recovery can write a rebuilt one (a missing one has nothing to
// keep).
func quarantineManifest(dir string) (string, error) {
	src := filepath.Join(dir, episode.ManifestFile)
	if _, err := os.Stat(src); err != nil {
		return "", nil
	}
	qdir := filepath.Join(dir, episode.QuarantineDir)
	if err := os.MkdirAll(qdir, 0o755); err != nil {
		return "", err
	}
	dst := filepath.Join(qdir, episode.ManifestFile+".corrupt")
	if err := os.Rename(src, dst); err != nil {
		return "", err
	}
	return filepath.Join(episode.QuarantineDir, episode.ManifestFile+".corrupt"), fsutil.SyncDir(dir)
}
