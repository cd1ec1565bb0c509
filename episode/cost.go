package episode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/edged-robotics/edged/sheet/recipe"
)

// Cost is what an episode directory holds, by kind, and what showing it
// to a VLM costs, per camera-hour of episode time. It is computed from
// the files (ReadCost), by one reader, so that the robot's store and a
// sink's copy of the same episode are measured alike: at the sink it is
// what was shipped (every byte there arrived over the uplink). The
// tokens are each sheet's vlm_tokens, or, where the files are exactly
// what the robot's end manifest announced with their tokens
// (producedTokens), the announced sums: the same numbers, from the same
// robot, without a read of every sheet's metadata.
//
// The robot's store holds no state snippets (they are cut from the
// joint stream when a sheet ships, and only shipped), so a robot's cost
// line counts snippets as 0; its sheet .json files are indented where the
// shipped ones are compact, a few hundred bytes more per sheet.
type Cost struct {
	// Bytes of contact sheets (sheets/: .jpg and .json).
	ContactBytes int64 `json:"contact_sheet_bytes"`
	// Bytes of labeling sheets (labels/: .jpg and .json).
	LabelBytes int64 `json:"label_sheet_bytes"`
	// Bytes of state snippets (snippets/).
	SnippetBytes int64 `json:"snippet_bytes"`
	// Bytes of everything else: manifest.json, segments.rec,
	// transitions.rec (a sink holds no transitions), quarantine/.
	OtherBytes int64 `json:"other_bytes"`
	// Bytes is the sum of the four.
	Bytes int64 `json:"bytes"`

	ContactSheets int `json:"contact_sheets"`
	LabelSheets   int `json:"label_sheets"`
	Snippets      int `json:"snippets"`

	// VLM tokens to show every contact sheet and every labeling sheet
	// once (each sheet's vlm_tokens, else the rule on its width and
	// height: recipe.VLMTokens).
	ContactTokens int `json:"contact_sheet_tokens"`
	LabelTokens   int `json:"label_sheet_tokens"`
	Tokens        int `json:"vlm_tokens"`

	// Cameras is the number of camera directories (sheets/, labels/,
	// snippets/ together).
	Cameras int `json:"cameras"`
	// Seconds of episode time: end - start of a closed episode; of an
	// open one, up to the end of its last contact-sheet tile.
	Seconds float64 `json:"episode_seconds"`
	// Per camera-hour: Bytes and Tokens / (Seconds x Cameras / 3600); 0
	// when there is no camera or no time.
	BytesPerCameraHour  float64 `json:"bytes_per_camera_hour"`
	TokensPerCameraHour float64 `json:"tokens_per_camera_hour"`
}

// maxSheetMeta caps a sheet .json read for its tokens and tiles (a
// 400-tile sheet's metadata is under 100 KiB).
const maxSheetMeta = 4 << 20

// ReadCost computes the cost line of the episode directory dir.
func ReadCost(dir string) (Cost, error) {
	m, err := loadManifest(dir)
	if err != nil {
		return Cost{}, fmt.Errorf("episode: cost of %s: %w", dir, err)
	}
	return costOf(dir, &m)
}

// costOf walks dir once, then counts what it found (costOfFiles).
func costOf(dir string, m *Manifest) (Cost, error) {
	files, err := listFiles(dir)
	if err != nil {
		return Cost{}, err
	}
	return costOfDir(dir, files, m)
}

// listFiles lists the regular files under the episode directory dir,
// named relative to it with slashes.
func listFiles(dir string) ([]blob.Info, error) {
	var files []blob.Info
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed while we walk (retention, a temp file)
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		files = append(files, blob.Info{Name: filepath.ToSlash(rel), Size: fi.Size()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("episode: cost of %s: %w", dir, err)
	}
	return files, nil
}

// costOfDir counts files, listed in the episode directory dir.
func costOfDir(dir string, files []blob.Info, m *Manifest) (Cost, error) {
	read := func(rel string) ([]byte, error) {
		return fsutil.ReadFileCapped(filepath.Join(dir, filepath.FromSlash(rel)), maxSheetMeta)
	}
	return costOfFiles(files, read, m)
}

// costOfFiles: every file (named relative to the episode) counts in one
// kind; the sheet .json files, read with read, give the tokens and, for
// an open episode, its time. A directory and an object store share it.
func costOfFiles(files []blob.Info, read func(rel string) ([]byte, error), m *Manifest) (Cost, error) {
	var c Cost
	cams := map[string]bool{}
	var lastTile float64
	contact, label, announced := producedTokens(m, heldOf(blobNames(files, ""), 0).Cameras)
	if announced {
		read = nil // the tokens are known; what a tile covers is not needed
	}
	for _, f := range files {
		parts := strings.Split(f.Name, "/")
		kind := ""
		if len(parts) == 3 {
			kind = parts[0]
		}
		name := parts[len(parts)-1]
		switch {
		case kind == SheetsDir && isSheetFile(name, SheetPrefix):
			cams[parts[1]] = true
			c.ContactBytes += f.Size
			if strings.HasSuffix(name, ".json") {
				c.ContactSheets++
				if read == nil {
					continue
				}
				t, end, err := sheetTokens(f.Name, read)
				if err != nil {
					return c, err
				}
				c.ContactTokens += t
				lastTile = max(lastTile, end)
			}
		case kind == LabelsDir && isSheetFile(name, LabelPrefix):
			cams[parts[1]] = true
			c.LabelBytes += f.Size
			if strings.HasSuffix(name, ".json") {
				c.LabelSheets++
				if read == nil {
					continue
				}
				t, _, err := sheetTokens(f.Name, read)
				if err != nil {
					return c, err
				}
				c.LabelTokens += t
			}
		case kind == SnippetsDir && strings.HasSuffix(name, SnippetExt) && !strings.HasPrefix(name, "."):
			cams[parts[1]] = true
			c.SnippetBytes += f.Size
			c.Snippets++
		case strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp"):
			// an atomic write in progress (fsutil.WriteFileAtomic)
		default:
			c.OtherBytes += f.Size
		}
	}
	if announced {
		c.ContactTokens, c.LabelTokens = contact, label
	}
	c.Bytes = c.ContactBytes + c.LabelBytes + c.SnippetBytes + c.OtherBytes
	c.Tokens = c.ContactTokens + c.LabelTokens
	c.Cameras = len(cams)
	if d := m.Duration(); d > 0 {
		c.Seconds = d.Seconds()
	} else {
		c.Seconds = lastTile
	}
	if hours := c.Seconds * float64(c.Cameras) / 3600; hours > 0 {
		c.BytesPerCameraHour = float64(c.Bytes) / hours
		c.TokensPerCameraHour = float64(c.Tokens) / hours
	}
	return c, nil
}

// Bounds of one sheet's VLM tokens (recipe.VLMTokens): an announced
// sum outside n sheets' bounds is not believed.
var (
	minSheetTokens = recipe.VLMTokens(1, 1)
	maxSheetTokens = recipe.VLMTokens(recipe.MaxSheetSide, recipe.MaxSheetSide)
)

// producedTokens returns the VLM tokens of the contact sheets and of
// the labeling sheets m's robot announced (Manifest.Produced) when they
// can stand for the sheets' own metadata: m is closed (its time is known
// without the tiles), the files counted (held, per camera) are exactly
// the announced ones, and every camera's tokens are within what its
// sheets can cost. Otherwise the cost reads each sheet's metadata.
func producedTokens(m *Manifest, held map[string]CameraCounts) (contact, label int, ok bool) {
	if !m.Closed || m.Duration() <= 0 || len(m.Produced) == 0 {
		return 0, 0, false
	}
	for cam := range held {
		if _, listed := m.Produced[cam]; !listed {
			return 0, 0, false
		}
	}
	for cam, p := range m.Produced {
		h := held[cam]
		if h.Sheets != p.Sheets || h.LabelSheets != p.LabelSheets || h.Snippets != p.Snippets ||
			!plausibleTokens(p.SheetTokens, p.Sheets) || !plausibleTokens(p.LabelTokens, p.LabelSheets) {
			return 0, 0, false
		}
		contact += p.SheetTokens
		label += p.LabelTokens
	}
	return contact, label, true
}

// plausibleTokens: n sheets can cost tokens.
func plausibleTokens(tokens, n int) bool {
	return tokens >= n*minSheetTokens && tokens <= n*maxSheetTokens
}

// isSheetFile: NAME.jpg or NAME.json of a sheet (not a temporary file).
func isSheetFile(name, prefix string) bool {
	return strings.HasPrefix(name, prefix) && (strings.HasSuffix(name, ".jpg") || strings.HasSuffix(name, ".json"))
}

// sheetMeta is the part of a sheet's metadata (sheet.Meta) the cost
// reads; episode does not import sheet (cgo), so the fields are read by
// their JSON names.
type sheetMeta struct {
	Width    int     `json:"width"`
	Height   int     `json:"height"`
	Tokens   int     `json:"vlm_tokens"`
	Interval float64 `json:"interval_seconds"`
	Tiles    []struct {
		Seconds float64 `json:"seconds"`
	} `json:"tiles"`
}

// sheetTokens returns a sheet's VLM tokens and the episode time its last
// tile covers (its seconds + the interval). Unreadable metadata is an
// error: the cost would be wrong without saying so.
func sheetTokens(path string, read func(string) ([]byte, error)) (tokens int, end float64, err error) {
	b, err := read(path)
	if err != nil {
		return 0, 0, err
	}
	var m sheetMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return 0, 0, fmt.Errorf("%s: %w (not sheet metadata)", path, err)
	}
	tokens = m.Tokens
	if tokens <= 0 {
		tokens = recipe.VLMTokens(m.Width, m.Height)
	}
	if n := len(m.Tiles); n > 0 {
		end = m.Tiles[n-1].Seconds + m.Interval
	}
	return tokens, end, nil
}

// String is the one-line cost: shipped bytes and VLM tokens, by kind,
// then per camera-hour.
func (c Cost) String() string {
	return fmt.Sprintf("%s (contact sheets %s, labeling sheets %s, snippets %s, other %s); %d VLM tokens (contact %d, labeling %d); "+
		"per camera-hour: %s, %.0f tokens (%d camera(s) x %.1f s)",
		mb(c.Bytes), mb(c.ContactBytes), mb(c.LabelBytes), mb(c.SnippetBytes), mb(c.OtherBytes),
		c.Tokens, c.ContactTokens, c.LabelTokens, mb(int64(c.BytesPerCameraHour)), c.TokensPerCameraHour, c.Cameras, c.Seconds)
}

// mb formats bytes in decimal megabytes (the unit of the budget).
func mb(n int64) string {
	if n < 100_000 {
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	}
	return fmt.Sprintf("%.2f MB", float64(n)/1e6)
}
