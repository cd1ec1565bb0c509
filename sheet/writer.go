package sheet

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// DirWriter stores sheets as sheet-NNNN.jpg plus sheet-NNNN.json (the
// Meta) under one directory, each file written atomically: temp file,
// fsync, rename, fsync of the directory. Label sheets are named
// label-TTTTTT-TTTTTT.jpg by their first and last tick. Not safe for
// concurrent use.
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
	if s.Meta.Kind == "label" && len(s.Meta.Tiles) > 0 {
		return fmt.Sprintf("label-%06d-%06d", s.Meta.Tiles[0].Tick, s.Meta.Tiles[len(s.Meta.Tiles)-1].Tick)
	}
	return fmt.Sprintf("sheet-%04d", s.Meta.Index)
}

// Write stores s; it is an Emit function for a Builder.
func (w *DirWriter) Write(s *Sheet) error {
	meta, err := json.MarshalIndent(&s.Meta, "", "  ")
	if err != nil {
		return fmt.Errorf("sheet: encode metadata: %w", err)
	}
	base := filepath.Join(w.Dir, Name(s))
	if err := WriteFileAtomic(base+".jpg", s.JPEG); err != nil {
		return err
	}
	return WriteFileAtomic(base+".json", append(meta, '\n'))
}

// WriteFileAtomic writes data to path so that after a crash path holds
// either the old or the new content: temp file in the same directory,
// fsync, rename, fsync the directory.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("sheet: write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("sheet: write %s: %w", path, err)
	}
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sheet: sync dir %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sheet: sync dir %s: %w", dir, err)
	}
	return nil
}
