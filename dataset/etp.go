package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/edged-robotics/edged/rtl"
	"github.com/edged-robotics/edged/sheet"
)

// ETPFormat names the ETP export's schema version.
const ETPFormat = "edged-etp/1"

// File names of the ETP export in its output directory.
const (
	ETPFile   = "etp.json"
	FrameFile = "first_frame.jpg"
)

// Caps of what the export reads.
const (
	maxMetaBytes  = 4 << 20
	maxSheetBytes = 64 << 20
	maxPixels     = 16 << 20 // the sheet recipe's canvas cap
)

// ETP is one ETP-Bench sample: instruction, first frame, executed plan.
type ETP struct {
	Format      string       `json:"format"`
	Episode     string       `json:"episode"`
	Robot       string       `json:"robot"`
	Instruction string       `json:"instruction"`
	Image       string       `json:"image"` // file in the output directory; "" without contact sheets
	ImageSource *ImageSource `json:"image_source,omitempty"`
	Plan        []PlanStep   `json:"plan"`
}

// ImageSource says where the first frame was cut from.
type ImageSource struct {
	Camera  string    `json:"camera"`
	Sheet   string    `json:"sheet"` // relative to the episode directory
	Tile    int       `json:"tile"`  // index in the sheet's tiles
	Seconds float64   `json:"seconds"`
	Stamp   time.Time `json:"stamp"`
}

// PlanStep is one executed step.
type PlanStep struct {
	Step     int       `json:"step"` // from 1
	Action   string    `json:"action"`
	Args     []string  `json:"args"`
	Label    string    `json:"label"`
	StartSec float64   `json:"start_sec"`
	EndSec   float64   `json:"end_sec"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Outcome  string    `json:"outcome"`
}

// WriteETP writes the ETP sample of e, whose files are ep (blob.Sub of
// its store), into dir (created if needed): etp.json and, when the
// episode has contact sheets, first_frame.jpg.
func WriteETP(dir string, e *episode.Episode, ep blob.Blobs) (ETP, error) {
	x := ETP{Format: ETPFormat, Episode: e.Manifest.ID, Robot: e.Manifest.Robot,
		Instruction: e.Manifest.Instruction, Plan: []PlanStep{}}
	for i, s := range steps(e) {
		el := rtl.ParseElement(s.Label)
		x.Plan = append(x.Plan, PlanStep{Step: i + 1, Action: el.Name, Args: nonNil(el.Args), Label: s.Label,
			StartSec: round6(s.StartSec), EndSec: round6(s.EndSec), Start: s.Start.UTC(), End: s.End.UTC(), Outcome: s.Outcome})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return x, fmt.Errorf("export etp: %w", err)
	}
	frame, src, err := FirstFrame(ep)
	if err != nil {
		return x, err
	}
	if err := writeFrame(filepath.Join(dir, FrameFile), frame); err != nil {
		return x, err
	}
	if frame != nil {
		x.Image, x.ImageSource = FrameFile, src
	}
	b, err := json.MarshalIndent(x, "", "  ")
	if err != nil {
		return x, fmt.Errorf("export etp: %w", err)
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(dir, ETPFile), append(b, '\n')); err != nil {
		return x, fmt.Errorf("export etp: %w", err)
	}
	return x, nil
}

// writeFrame writes the first frame, or removes the one an earlier
// export left in the directory when there is none: an image beside an
// etp.json that names none would pass for this episode's.
func writeFrame(path string, frame []byte) error {
	if frame == nil {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("export etp: removing an earlier export's image: %w", err)
		}
		return nil
	}
	if err := fsutil.WriteFileAtomic(path, frame); err != nil {
		return fmt.Errorf("export etp: %w", err)
	}
	return nil
}

// FirstFrame cuts the first tile that shows a frame out of the contact
// sheets of the episode ep (cameras in name order, sheets in index
// order) as a JPEG; nil when there is none.
func FirstFrame(ep blob.Blobs) ([]byte, *ImageSource, error) {
	sheets, err := listed(ep, episode.SheetsDir)
	if err != nil {
		return nil, nil, err
	}
	for _, cam := range sheets.cameras() {
		for _, name := range sheets.byCam[cam] {
			base, ok := strings.CutSuffix(name, ".json")
			if !ok || !strings.HasPrefix(base, episode.SheetPrefix) {
				continue
			}
			rel := path.Join(episode.SheetsDir, cam, base)
			meta, err := readMeta(ep, rel+".json")
			if err != nil {
				return nil, nil, err
			}
			for i, t := range meta.Tiles {
				if t.Placeholder {
					continue
				}
				img, err := cutTile(ep, rel+".jpg", meta, t)
				if err != nil {
					return nil, nil, err
				}
				return img, &ImageSource{Camera: cam, Sheet: rel + ".jpg", Tile: i, Seconds: t.Seconds,
					Stamp: t.Stamp.Time().UTC()}, nil
			}
		}
	}
	return nil, nil, nil
}

func readMeta(ep blob.Blobs, name string) (*sheet.Meta, error) {
	b, _, err := ep.Get(name, maxMetaBytes)
	if err != nil {
		return nil, fmt.Errorf("export etp: %s/%s: %w", ep, name, err)
	}
	var m sheet.Meta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("export etp: %s/%s: bad sheet metadata: %w", ep, name, err)
	}
	return &m, nil
}

// cutTile decodes the sheet (its size checked against the cap first)
// and encodes tile t at the sheet's quality.
func cutTile(ep blob.Blobs, name string, m *sheet.Meta, t sheet.TileMeta) ([]byte, error) {
	where := ep.String() + "/" + name
	b, _, err := ep.Get(name, maxSheetBytes)
	if err != nil {
		return nil, fmt.Errorf("export etp: %s: %w", where, err)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("export etp: %s: %w", where, err)
	}
	if cfg.Width*cfg.Height > maxPixels {
		return nil, fmt.Errorf("export etp: %s: %dx%d is more than %d pixels", where, cfg.Width, cfg.Height, maxPixels)
	}
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("export etp: %s: %w", where, err)
	}
	r := image.Rect(t.Column*m.TileWidth, t.Row*m.TileHeight, (t.Column+1)*m.TileWidth, (t.Row+1)*m.TileHeight)
	if m.TileWidth <= 0 || m.TileHeight <= 0 || !r.In(img.Bounds()) {
		return nil, fmt.Errorf("export etp: %s: tile %v lies outside the %v sheet (bad metadata)", where, r, img.Bounds())
	}
	sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok {
		return nil, fmt.Errorf("export etp: %s: cannot cut a %T", where, img)
	}
	q := m.Quality
	if q < 1 || q > 100 {
		q = 90
	}
	var out bytes.Buffer
	if err := jpeg.Encode(&out, sub.SubImage(r), &jpeg.Options{Quality: q}); err != nil {
		return nil, fmt.Errorf("export etp: %w", err)
	}
	return out.Bytes(), nil
}
