package sheet

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// TestBadgeOCR builds the default recipe's contact sheet from 20 real
// 1280x720 frames (pan720p.mp4, one per 0.5 s) and reads every tile's
// badge back with tesseract: at least 19 of the 20 must come out exactly
// ("000.00s" ... "009.50s"). The VLM's temporal grounding rests on reading
// these digits, and OCR is the machine reader we can run in a test.
//
// Preprocessing, the same whatever the font (see ocrBadge): crop the
// badge box out of the decoded sheet JPEG (its size is what drawBadge
// reports for that text on that tile), convert to grey (mean of R, G, B),
// invert to dark text on white, pad with 8 px of white, upscale 2x by
// pixel replication. Then `tesseract --psm 7` (one text line) with the
// character whitelist "0123456789.s".
func TestBadgeOCR(t *testing.T) {
	tess, err := exec.LookPath("tesseract")
	if err != nil {
		t.Skip("tesseract not installed (Debian package tesseract-ocr; make deps): needed to OCR the badges")
	}
	paths := panFrames(t, 15)
	if len(paths) != 20 {
		t.Fatalf("extracted %d frames, want 20", len(paths))
	}
	out := t.TempDir()
	r := DefaultRecipe()
	sum, err := BuildFiles(paths, FPSStamps(len(paths), 2), r, "/pan", out)
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Sheets) != 1 || len(sum.Sheets[0].Tiles) != 20 {
		t.Fatalf("summary %s", sum)
	}
	m := sum.Sheets[0]
	jpeg, err := os.ReadFile(filepath.Join(out, "sheet-0001.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	dec, err := turbojpeg.NewDecoder(turbojpeg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	sw, sh, pix, err := dec.Decode(jpeg, 8, nil)
	if err != nil || sw != m.Width || sh != m.Height {
		t.Fatalf("decode sheet: %v %dx%d", err, sw, sh)
	}
	sheetImg := rgbImage{pix: pix, w: sw, h: sh, stride: sw * 3}
	work := t.TempDir()
	read := 0
	var report strings.Builder
	for i, tm := range m.Tiles {
		var tb [24]byte
		want := string(formatSeconds(&tb, centis(tm.Tick, r.Interval)))
		tile := sheetImg.sub(tm.Column*m.TileWidth, tm.Row*m.TileHeight, m.TileWidth, m.TileHeight)
		got, err := ocrBadge(tess, work, i, tile, want)
		if err != nil {
			t.Fatal(err)
		}
		if got == want {
			read++
		}
		fmt.Fprintf(&report, "  tile %2d: want %s, read %q\n", i, want, got)
	}
	t.Logf("tesseract read %d of 20 badges exactly:\n%s", read, report.String())
	if read < 19 {
		t.Errorf("tesseract read %d of 20 badges exactly, want >= 19", read)
	}
}

// sub is the w x h view of m at (x, y).
func (m rgbImage) sub(x, y, w, h int) rgbImage {
	return rgbImage{pix: m.pix[y*m.stride+x*3:], w: w, h: h, stride: m.stride}
}

// ocrBadge crops the badge of text drawn on tile, preprocesses it as
// TestBadgeOCR documents and returns what tesseract reads, trimmed.
func ocrBadge(tess, dir string, i int, tile rgbImage, text string) (string, error) {
	// The badge box is what drawBadge draws for this text on this tile.
	scratch := rgbImage{pix: make([]byte, tile.w*tile.h*3), w: tile.w, h: tile.h, stride: tile.w * 3}
	bw, bh := scratch.drawBadge([]byte(text))
	const pad, scale = 8, 2
	w, h := (bw+2*pad)*scale, (bh+2*pad)*scale
	grey := bytes.Repeat([]byte{255}, w*h)
	for y := 0; y < bh; y++ {
		for x := 0; x < bw; x++ {
			p := tile.pix[y*tile.stride+3*x:]
			v := 255 - byte((int(p[0])+int(p[1])+int(p[2]))/3)
			for dy := 0; dy < scale; dy++ {
				row := ((y+pad)*scale + dy) * w
				for dx := 0; dx < scale; dx++ {
					grey[row+(x+pad)*scale+dx] = v
				}
			}
		}
	}
	in := filepath.Join(dir, fmt.Sprintf("badge%02d.pgm", i))
	pgm := append([]byte(fmt.Sprintf("P5\n%d %d\n255\n", w, h)), grey...)
	if err := os.WriteFile(in, pgm, 0o644); err != nil {
		return "", err
	}
	cmd := exec.Command(tess, in, "stdout", "--psm", "7", "-c", "tessedit_char_whitelist=0123456789.s")
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("tesseract %s: %w\n%s", in, err, stderr.String())
	}
	return strings.TrimSpace(string(out)), nil
}
