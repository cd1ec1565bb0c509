package episode

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
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
// tokens are each sheet's vlm_tokens, or, where a camera's sheets are
// exactly what the robot's end manifest announced with their tokens
// (knownTokens), the announced sums, or, of a complete episode whose
// sheets are still the ones counted, the receiver's cost line
// (Manifest.Cost): the same numbers without a read of every sheet's
// metadata (on an object store, a GET each).
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

	// ContactTokens: VLM tokens to show every contact sheet once (each
	// sheet's vlm_tokens, else the rule on its width and height:
	// recipe.VLMTokens). LabelSheetTokens: the same of the shipped
	// labeling sheets.
	ContactTokens    int `json:"contact_sheet_tokens"`
	LabelSheetTokens int `json:"label_sheet_tokens"`
	// LabelTokens: the tokens to show each segment's labeling image once
	// (labelingTokens), whether the robot shipped it or the cloud
	// composes it from the contact sheets. Tokens is ContactTokens +
	// LabelTokens.
	LabelTokens int `json:"labeling_tokens"`
	Tokens      int `json:"vlm_tokens"`

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

// costOfFiles: every file (named relative to the episode, with its
// size as listed) counts in one kind; the VLM tokens of the sheets are
// the ones m announced or stored where they stand for the files
// (knownTokens), else read with read from the sheets' metadata, which
// also gives an open episode's time. A directory and an object store
// share it: on an object store each metadata read is a GET, so what is
// announced is read from no sheet.
func costOfFiles(files []blob.Info, read func(rel string) ([]byte, error), m *Manifest) (Cost, error) {
	c, cams := countFiles(files)
	lastTile, err := c.addTokens(cams, read, m)
	if err != nil {
		return c, err
	}
	c.Bytes = c.ContactBytes + c.LabelBytes + c.SnippetBytes + c.OtherBytes
	c.LabelTokens = labelingTokens(c.LabelSheetTokens, m.Segments, cams)
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

// camSheets are one camera's sheet metadata files (.json), named
// relative to the episode, in name (so index) order.
type camSheets struct {
	contact, label []string
}

// countFiles counts the bytes of every kind and the sheets and snippets
// of files, and lists each camera's sheet metadata.
func countFiles(files []blob.Info) (Cost, map[string]*camSheets) {
	var c Cost
	cams := map[string]*camSheets{}
	camera := func(name string) *camSheets {
		if cams[name] == nil {
			cams[name] = &camSheets{}
		}
		return cams[name]
	}
	for _, f := range files {
		parts := strings.Split(f.Name, "/")
		kind, name := "", parts[len(parts)-1]
		if len(parts) == 3 {
			kind = parts[0]
		}
		meta := strings.HasSuffix(name, ".json")
		switch {
		case kind == SheetsDir && isSheetFile(name, SheetPrefix):
			cs := camera(parts[1])
			c.ContactBytes += f.Size
			if meta {
				c.ContactSheets++
				cs.contact = append(cs.contact, f.Name)
			}
		case kind == LabelsDir && isSheetFile(name, LabelPrefix):
			cs := camera(parts[1])
			c.LabelBytes += f.Size
			if meta {
				c.LabelSheets++
				cs.label = append(cs.label, f.Name)
			}
		case kind == SnippetsDir && strings.HasSuffix(name, SnippetExt) && !strings.HasPrefix(name, "."):
			camera(parts[1])
			c.SnippetBytes += f.Size
			c.Snippets++
		case strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp"):
			// an atomic write in progress (fsutil.WriteFileAtomic)
		default:
			c.OtherBytes += f.Size
		}
	}
	for _, cs := range cams {
		sort.Strings(cs.contact)
		sort.Strings(cs.label)
	}
	return c, cams
}

// addTokens adds the VLM tokens of every camera's sheets to c: the
// ones known without a read (knownTokens), else each sheet's metadata.
// It returns the episode time the last contact-sheet tile covers, read
// (from each camera's last contact sheet) only when m has no time.
func (c *Cost) addTokens(cams map[string]*camSheets, read func(string) ([]byte, error), m *Manifest) (lastTile float64, err error) {
	if s := m.Cost; m.Complete && s != nil && s.ContactSheets == c.ContactSheets && s.LabelSheets == c.LabelSheets {
		// A receiver's cost line of the files it completed with, which
		// are still there: its tokens are theirs.
		c.ContactTokens, c.LabelSheetTokens = s.ContactTokens, s.LabelSheetTokens
		return 0, nil
	}
	for cam, cs := range cams {
		contact, label := knownTokens(m, cam, len(cs.contact), len(cs.label))
		var end float64
		if contact < 0 {
			contact, end, err = sumTokens(cs.contact, read)
		} else if m.Duration() <= 0 && len(cs.contact) > 0 {
			_, end, err = sheetTokens(cs.contact[len(cs.contact)-1], read)
		}
		if label < 0 && err == nil {
			label, _, err = sumTokens(cs.label, read)
		}
		if err != nil {
			return 0, err
		}
		c.ContactTokens += contact
		c.LabelSheetTokens += label
		lastTile = max(lastTile, end)
	}
	return lastTile, nil
}

// ComposedLabelTokens are the VLM tokens of a segment's image the cloud
// composes from the contact sheets when the robot shipped none
// (sheet.LabelImage: within one VLM tile).
var ComposedLabelTokens = recipe.VLMTokens(recipe.VLMTile, recipe.VLMTile)

// labelingTokens are the VLM tokens to show every segment's labeling
// image once per camera with sheets (issue 9's budget: every contact
// and labeling sheet once): its shipped labeling sheets' tokens
// (shipped, summed over the cameras) and, for each segment the robot
// shipped none of, the image the cloud composes (ComposedLabelTokens).
// The seeded relabeling shows each segment's image in three requests
// (previous, current, next: ANNOTATION.md); that is the annotation's
// request cost, which edged annotate estimates and caps (--max-cost),
// not what the episode holds for a model to see.
func labelingTokens(shipped, segments int, cams map[string]*camSheets) int {
	images := shipped
	for _, cs := range cams {
		if len(cs.contact) == 0 && len(cs.label) == 0 {
			continue // snippets only: no image of it to show
		}
		images += max(0, segments-len(cs.label)) * ComposedLabelTokens
	}
	return images
}

// sumTokens reads the metadata of every sheet named: their VLM tokens,
// and the episode time the last tile of any covers.
func sumTokens(names []string, read func(string) ([]byte, error)) (tokens int, end float64, err error) {
	for _, n := range names {
		t, e, err := sheetTokens(n, read)
		if err != nil {
			return 0, 0, err
		}
		tokens += t
		end = max(end, e)
	}
	return tokens, end, nil
}

// Bounds of one sheet's VLM tokens (recipe.VLMTokens): an announced
// sum outside n sheets' bounds is not believed.
var (
	minSheetTokens = recipe.VLMTokens(1, 1)
	maxSheetTokens = recipe.VLMTokens(recipe.MaxSheetSide, recipe.MaxSheetSide)
)

// knownTokens returns the VLM tokens of camera cam's contact sheets and
// of its labeling sheets that m's robot announced (Manifest.Produced),
// each -1 where the announcement cannot stand for the sheets' own
// metadata: m is not closed (the end manifest announces), the files
// counted (sheets contact sheets, labels labeling sheets) are not
// exactly the announced ones, or the tokens are not within what that
// many sheets can cost.
func knownTokens(m *Manifest, cam string, sheets, labels int) (contact, label int) {
	contact, label = -1, -1
	p, ok := m.Produced[cam]
	if !m.Closed || !ok {
		return contact, label
	}
	if p.Sheets == sheets && plausibleTokens(p.SheetTokens, sheets) {
		contact = p.SheetTokens
	}
	if p.LabelSheets == labels && plausibleTokens(p.LabelTokens, labels) {
		label = p.LabelTokens
	}
	return contact, label
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
	return fmt.Sprintf("%s (contact sheets %s, labeling sheets %s, snippets %s, other %s); %d VLM tokens (contact sheets %d, labeling images %d); "+
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
