package blobtest

import (
	"testing"

	"github.com/edged-robotics/edged/blob"
)

func TestDir(t *testing.T) { Contract(t, blob.Dir{Root: t.TempDir()}) }
