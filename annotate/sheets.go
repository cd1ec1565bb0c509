package annotate

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/sheet"
)

// Caps on what is read of one episode before allocating.
const (
	// maxSheetJPEG caps one stored sheet's JPEG.
	maxSheetJPEG = 32 << 20
	// maxSheetMeta caps one sheet's JSON metadata.
	maxSheetMeta = 1 << 20
	// maxSheets caps the sheets of one camera sent in one request (a
	// 5 x 4 sheet every 10 s: about 5.5 hours).
	maxSheets = 2000
)

// camera is one camera's stored sheets of an episode (contact sheets in
// time order, or labeling sheets in segment order).
type camera struct {
	Dir    string // its directory name (episode.CameraDir)
	Sheets []sheet.Sheet
}

// listed is one camera's sheet files (base names without extension).
type listed struct {
	Dir   string
	Names []string
}

// listCameras lists every camera's sheets of episode id under kind
// (episode.SheetsDir or episode.LabelsDir, files named with prefix),
// sorted by camera directory, without reading them.
func listCameras(b blob.Blobs, id, kind, prefix string) ([]listed, error) {
	root := id + "/" + kind + "/"
	list, err := b.List(root)
	if err != nil {
		return nil, fmt.Errorf("annotate: list the %s of %s: %w", kind, id, err)
	}
	byCam := map[string][]string{}
	for _, f := range list {
		dir, base := path.Split(strings.TrimPrefix(f.Name, root))
		if dir == "" || strings.Contains(strings.TrimSuffix(dir, "/"), "/") ||
			!strings.HasPrefix(base, prefix) || !strings.HasSuffix(base, ".json") {
			continue
		}
		cam := strings.TrimSuffix(dir, "/")
		byCam[cam] = append(byCam[cam], strings.TrimSuffix(base, ".json"))
	}
	var out []listed
	for _, cam := range slices.Sorted(maps.Keys(byCam)) {
		out = append(out, listed{Dir: cam, Names: byCam[cam]})
	}
	return out, nil
}

// readCamera reads the sheets l lists (contact sheets in time order,
// labeling sheets in segment order).
func readCamera(b blob.Blobs, id, kind string, l listed) (camera, error) {
	c := camera{Dir: l.Dir}
	if len(l.Names) > maxSheets {
		return c, fmt.Errorf("annotate: %s has %d %s of camera %s, over %d: annotate a shorter episode", id, len(l.Names), kind, l.Dir, maxSheets)
	}
	for _, n := range l.Names {
		s, err := readSheet(b, id+"/"+kind+"/"+l.Dir+"/"+n)
		if err != nil {
			return c, err
		}
		c.Sheets = append(c.Sheets, s)
	}
	slices.SortStableFunc(c.Sheets, func(x, y sheet.Sheet) int { return cmp.Compare(sheetOrder(x), sheetOrder(y)) })
	return c, nil
}

// sheetOrder is a contact sheet's index, a labeling sheet's segment.
func sheetOrder(s sheet.Sheet) int {
	if s.Meta.Segment != nil {
		return s.Meta.Segment.Index
	}
	return s.Meta.Index
}

// readSheet reads base.json and base.jpg.
func readSheet(b blob.Blobs, base string) (sheet.Sheet, error) {
	var s sheet.Sheet
	meta, _, err := b.Get(base+".json", maxSheetMeta)
	if err != nil {
		return s, fmt.Errorf("annotate: read %s.json: %w", base, err)
	}
	if err := json.Unmarshal(meta, &s.Meta); err != nil {
		return s, fmt.Errorf("annotate: %s.json is not sheet metadata (%v): the episode is damaged", base, err)
	}
	if s.JPEG, _, err = b.Get(base+".jpg", maxSheetJPEG); err != nil {
		return s, fmt.Errorf("annotate: read %s.jpg: %w", base, err)
	}
	return s, nil
}

// tokens is edged's own estimate of the VLM tokens of sheets (their
// metadata's count, else the token rule of their size).
func tokens(sheets []sheet.Sheet) int64 {
	var n int64
	for _, s := range sheets {
		t := s.Meta.Tokens
		if t <= 0 {
			t = sheet.VLMTokens(s.Meta.Width, s.Meta.Height)
		}
		n += int64(t)
	}
	return n
}

// key identifies what an annotation is computed from: the episode, the
// model, the prompt set (its version and text), the mode, the camera and
// every sheet's content.
func key(id, model string, p Prompts, mode, cam string, sheets []sheet.Sheet) string {
	h := sha256.New()
	for _, s := range []string{id, model, p.Version, p.digest(), mode, cam} {
		fmt.Fprintf(h, "%d:%s;", len(s), s)
	}
	for _, s := range sheets {
		m, _ := json.Marshal(s.Meta)
		j := sha256.Sum256(s.JPEG)
		fmt.Fprintf(h, "%d:%s;%x;", len(m), m, j)
	}
	return hex.EncodeToString(h.Sum(nil))
}
