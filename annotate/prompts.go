package annotate

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/edged-robotics/edged/internal/fsutil"
)

//go:embed prompts/*.txt
var builtin embed.FS

// The files of a prompt set (the built-in one is annotate/prompts/).
const (
	VersionFile = "version.txt"
	SegmentFile = "segment.txt"
	RelabelFile = "relabel.txt"
	OnTruthFile = "on_truth.txt"
)

// maxPromptBytes caps one prompt file before it is read.
const maxPromptBytes = 64 << 10

// Prompts is a prompt set: the system prompts of segmentation, seeded
// relabeling and labeling on the truth's boundaries, and its version,
// which names annotations (episode.AnnotationName) and enters their key.
type Prompts struct {
	Version string
	Segment string
	Relabel string
	OnTruth string
}

// Builtin is the prompt set shipped in the repository.
func Builtin() Prompts {
	p, err := loadPrompts(func(name string) ([]byte, error) { return builtin.ReadFile("prompts/" + name) })
	if err != nil {
		panic(err) // the embedded files are part of the build
	}
	return p
}

// LoadPrompts reads a user's prompt set from dir: the four files of the
// built-in set (edged annotate --print-prompts shows them), the version
// in version.txt.
func LoadPrompts(dir string) (Prompts, error) {
	p, err := loadPrompts(func(name string) ([]byte, error) {
		return fsutil.ReadFileCapped(dir+string(os.PathSeparator)+name, maxPromptBytes)
	})
	if err != nil {
		return p, fmt.Errorf("annotate: prompts in %s: %w (it needs %s, %s, %s and %s)", dir, err, VersionFile, SegmentFile, RelabelFile, OnTruthFile)
	}
	return p, nil
}

func loadPrompts(read func(string) ([]byte, error)) (Prompts, error) {
	var p Prompts
	for _, f := range []struct {
		name string
		dst  *string
	}{{VersionFile, &p.Version}, {SegmentFile, &p.Segment}, {RelabelFile, &p.Relabel}, {OnTruthFile, &p.OnTruth}} {
		b, err := read(f.name)
		if err != nil {
			return p, err
		}
		if *f.dst = strings.TrimSpace(string(b)); *f.dst == "" {
			return p, fmt.Errorf("%s is empty: %w", f.name, fs.ErrInvalid)
		}
	}
	if strings.ContainsAny(p.Version, " \t\n/\\") {
		return p, fmt.Errorf("%s: the version %q must be one word", VersionFile, p.Version)
	}
	return p, nil
}

// digest identifies the prompts' text, so an edited prompt with an
// unchanged version is not taken for the old one.
func (p Prompts) digest() string {
	h := sha256.New()
	for _, s := range []string{p.Version, p.Segment, p.Relabel, p.OnTruth} {
		fmt.Fprintf(h, "%d:%s", len(s), s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Write prints the set as --print-prompts shows it: each file under its
// name, so a user can copy them into a directory for --prompts.
func (p Prompts) Write(w io.Writer) error {
	for _, f := range []struct{ name, text string }{
		{VersionFile, p.Version}, {SegmentFile, p.Segment}, {RelabelFile, p.Relabel}, {OnTruthFile, p.OnTruth}} {
		if _, err := fmt.Fprintf(w, "==> %s <==\n%s\n\n", f.name, f.text); err != nil {
			return err
		}
	}
	return nil
}
