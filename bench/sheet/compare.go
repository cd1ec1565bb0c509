package main

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// sheetDiff is how two sheets of the same size differ, per RGB channel.
type sheetDiff struct {
	mean [3]float64 // mean |a-b|
	psnr [3]float64 // dB; +Inf when equal
}

func (d sheetDiff) String() string {
	return fmt.Sprintf("mean |diff| R %.2f G %.2f B %.2f, PSNR R %.1f G %.1f B %.1f dB",
		d.mean[0], d.mean[1], d.mean[2], d.psnr[0], d.psnr[1], d.psnr[2])
}

// compareSheets decodes two sheet JPEGs and compares their pixels,
// leaving out, when masked, each tile's top-left quarter-height, half-
// width corner: edged's badge (text on a box a little larger than the
// floor's) is there, the YUV prototype and the floors draw a black box.
func compareSheets(a, b []byte, tw, th int, masked bool) (sheetDiff, error) {
	d, err := turbojpeg.NewDecoder(sheetLimits())
	if err != nil {
		return sheetDiff{}, err
	}
	defer d.Close()
	w, h, pa, err := d.Decode(a, 8, nil)
	if err != nil {
		return sheetDiff{}, err
	}
	w2, h2, pb, err := d.Decode(b, 8, nil)
	if err != nil {
		return sheetDiff{}, err
	}
	if w != w2 || h != h2 {
		return sheetDiff{}, fmt.Errorf("sheets of %dx%d and %dx%d", w, h, w2, h2)
	}
	var abs, sq [3]float64
	n := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if masked && x%tw < tw/2 && y%th < th/4 {
				continue
			}
			n++
			for c := range 3 {
				v := float64(pa[3*(y*w+x)+c]) - float64(pb[3*(y*w+x)+c])
				abs[c] += math.Abs(v)
				sq[c] += v * v
			}
		}
	}
	var r sheetDiff
	for c := range 3 {
		r.mean[c] = abs[c] / float64(n)
		r.psnr[c] = 10 * math.Log10(255*255/(sq[c]/float64(n)))
	}
	return r, nil
}

// floorSheet runs the floor once (mode "" or "-yuv") and returns its sheet.
func floorSheet(floor, mode string, tw, quality int, paths []string) ([]byte, error) {
	out := filepath.Join(os.TempDir(), fmt.Sprintf("sheetbench-floor%s-%d.jpg", mode, os.Getpid()))
	defer os.Remove(out)
	args := []string{"1", strconv.Itoa(tw), strconv.Itoa(quality)}
	if mode != "" {
		args = append([]string{mode}, args...)
	}
	cmd := exec.Command(floor, append(args, paths...)...)
	cmd.Env = append(os.Environ(), "FLOOR_OUT="+out)
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("floor %s: %v: %s", mode, err, b)
	}
	return os.ReadFile(out)
}
