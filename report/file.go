package report

import (
	"fmt"
	"os"
	"path/filepath"
)

// WriteFile writes the report of ref (Write) to path: into a temporary
// file beside it, renamed into place once whole, so a failed run never
// leaves half a page under the name asked for. The file is 0644.
func WriteFile(path, ref string, o Options) (*Summary, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	defer os.Remove(f.Name())
	if o.OutDir == "" {
		if abs, err := filepath.Abs(filepath.Dir(path)); err == nil {
			o.OutDir = abs // clip links relative to the report
		}
	}
	s, err := Write(f, ref, o)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		return nil, err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return nil, fmt.Errorf("--out: %w", err)
	}
	return s, nil
}
