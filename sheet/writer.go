package sheet

import (
	"encoding/json"
	"fmt"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fsutil"
	"os"
	"path/filepath"
)

// DirWriter stores sheets as sheet-NNNN.jpg plus sheet-NNNN.json (the
// Meta) under one directory, each file written atomically: temp file,
// fsync, rename, fsync of the directory. A labeling sheet is named
// label-SSSS.jpg by its segment's index (one file per segment, even when
// two short segments share a tick); one without a segment (written
// before segments were named) label-TTTTTT-TTTTTT.jpg by its first and
// last tick. Not safe for concurrent use.
type DirWriter struct {
	Dir string
}

// NewDirWriter creates dir (and parents) if needed.
func NewDirWriter(dir string) (*DirWriter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("sheet: create %s: %w", dir, err)
	}
	return &DirWriter{Dir: dir}, nil
}

// Name returns the base name (no extension) a sheet is stored under.
func Name(s *Sheet) string {
	if s.Meta.Kind == "label" && s.Meta.Segment != nil {
		return episode.LabelName(s.Meta.Segment.Index)
	}
	if s.Meta.Kind == "label" && len(s.Meta.Tiles) > 0 {
		return fmt.Sprintf(episode.LabelPrefix+"%06d-%06d", s.Meta.Tiles[0].Tick, s.Meta.Tiles[len(s.Meta.Tiles)-1].Tick)
	}
	return episode.SheetName(s.Meta.Index)
}

// Write stores s; it is an Emit function for a Builder.
func (w *DirWriter) Write(s *Sheet) error {
	meta, err := json.MarshalIndent(&s.Meta, "", "  ")
	if err != nil {
		return fmt.Errorf("sheet: encode metadata: %w", err)
	}
	base := filepath.Join(w.Dir, Name(s))
	if err := fsutil.WriteFileAtomic(base+".jpg", s.JPEG); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(base+".json", append(meta, '\n'))
}
