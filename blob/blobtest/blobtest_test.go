package blobtest

import (
	"testing"

	"github.com/edged-robotics/edged/episode"
)

func TestDirBlobs(t *testing.T) { Contract(t, episode.DirBlobs{Root: t.TempDir()}) }
