//go:build cgo && !purego

package turbojpeg

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The backends' agreement. libjpeg-turbo scales in the DCT (n/8) and
// the pure-Go fallback with a box filter over the full decode; the two
// IDCTs round differently, and libjpeg-turbo upsamples chroma smoothly
// where image/jpeg replicates it. Measured on the sample video's frames
// (1280x720 4:2:0): under 1 level on average per channel at every
// scale. On the 40x24 gradient seeds, whose colour changes every few
// pixels, full-size 4:2:0 differs by 2.6, and an output of a few
// pixels (1/8 scale: one pixel per block) by up to 10 for 4:2:2, as
// each pixel's chroma then covers a 16x8 block in libjpeg-turbo and an
// 8x8 one in the box filter. The bounds sit above those; a wrong colour
// conversion, a swapped channel or an off-by-one row exceeds them by
// far.
const (
	maxMeanDiffFull   = 3.0  // mean |a-b| per channel at scale 8/8
	maxMeanDiffScaled = 4.0  // at 1/8..7/8, outputs of >= 32 px a side
	maxMeanDiffTiny   = 12.0 // scaled outputs under 32 px a side
	maxPixelDiff      = 128  // any one channel value, any scale
)

// maxEncodeMeanDiff bounds each encoder's round trip (decoded by
// libjpeg-turbo) against the source at quality 90, and the two
// encoders' outputs against each other.
const maxEncodeMeanDiff = 4.0

// diffStats compares two packed RGB images of the same size.
func diffStats(a, b []byte) (mean float64, worst int) {
	var sum int
	for i := range a {
		d := int(a[i]) - int(b[i])
		if d < 0 {
			d = -d
		}
		sum += d
		worst = max(worst, d)
	}
	return float64(sum) / float64(max(len(a), 1)), worst
}

// compareDecoders decodes j with both backends at scale num and
// returns what differs beyond the bounds ("" when they agree). When
// only one backend refuses j, that is reported as well.
func compareDecoders(j []byte, num int) string {
	c, err := NewDecoder(Limits{})
	if err != nil {
		return err.Error()
	}
	defer c.Close()
	p := newPureDecoder(Limits{})
	cw, ch, crgb, cerr := c.Decode(j, num, nil)
	pw, ph, prgb, perr := p.Decode(j, num, nil)
	switch {
	case cerr != nil && perr != nil:
		return ""
	case cerr != nil || perr != nil:
		return fmt.Sprintf("one backend refuses: cgo %v, purego %v", cerr, perr)
	case cw != pw || ch != ph:
		return fmt.Sprintf("cgo %dx%d, purego %dx%d", cw, ch, pw, ph)
	}
	mean, worst := diffStats(crgb, prgb)
	bound := maxMeanDiffScaled
	switch {
	case num == 8:
		bound = maxMeanDiffFull
	case cw < 32 || ch < 32:
		bound = maxMeanDiffTiny
	}
	if mean > bound || worst > maxPixelDiff {
		return fmt.Sprintf("%dx%d at %d/8: mean difference %.2f (bound %.1f), worst %d (bound %d)", cw, ch, num, mean, bound, worst, maxPixelDiff)
	}
	return ""
}

// TestBackendsDecodeAlike: camera frames (from the shared sample video)
// and the generated seeds decode to the same size and nearly the same
// pixels with libjpeg-turbo and the pure-Go fallback, at every DCT
// scale.
func TestBackendsDecodeAlike(t *testing.T) {
	inputs := map[string][]byte{}
	for name, j := range videoFrames(t) {
		inputs[name] = j
	}
	for name, j := range generatedJPEGs(t) {
		inputs[name] = j
	}
	for name, j := range inputs {
		for _, num := range []int{8, 4, 2, 1, 3} {
			t.Run(fmt.Sprintf("%s at %d of 8", name, num), func(t *testing.T) {
				if d := compareDecoders(j, num); d != "" {
					t.Error(d)
				}
			})
		}
	}
}

// TestBackendsEncodeAlike: the same RGB encoded by each backend decodes
// (with libjpeg-turbo) close to the source and to the other's.
func TestBackendsEncodeAlike(t *testing.T) {
	c, err := NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p := &pureEncoder{}
	dec, err := NewDecoder(Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	for _, tc := range []struct {
		w, h int
		sub  Subsamp
	}{{64, 48, Subsamp420}, {224, 168, Subsamp420}, {33, 17, Subsamp420}, {64, 48, SubsampGray}} {
		t.Run(fmt.Sprintf("%dx%d %v", tc.w, tc.h, tc.sub), func(t *testing.T) {
			src := gradient(tc.w, tc.h)
			var out [2][]byte
			for i, enc := range []interface {
				Encode(dst, rgb []byte, w, h, stride, quality int, sub Subsamp) ([]byte, error)
			}{c, p} {
				j, err := enc.Encode(nil, src, tc.w, tc.h, 3*tc.w, 90, tc.sub)
				if err != nil {
					t.Fatal(err)
				}
				w, h, rgb, err := dec.Decode(j, 8, nil)
				if err != nil || w != tc.w || h != tc.h {
					t.Fatalf("backend %d: decoded %dx%d, %v", i, w, h, err)
				}
				out[i] = bytes.Clone(rgb)
				if tc.sub != SubsampGray {
					if mean, _ := diffStats(src, rgb); mean > maxEncodeMeanDiff {
						t.Errorf("backend %d: mean difference %.2f from the source", i, mean)
					}
				}
			}
			if mean, _ := diffStats(out[0], out[1]); mean > maxEncodeMeanDiff {
				t.Errorf("the backends' encodings differ by %.2f on average", mean)
			}
		})
	}
}

// FuzzBackendsAgree: on any bytes neither backend panics, and where
// both decode, they agree on the size (pixels of damaged input are
// compared on the seeds only: the backends conceal damage
// differently). Seeds: testdata/fuzz/FuzzBackendsAgree (generated
// JPEGs of each subsampling, see TestWriteDiffSeeds) and their cut and
// corrupted variants.
func FuzzBackendsAgree(f *testing.F) {
	for _, j := range generatedJPEGs(f) {
		f.Add(j)
		f.Add(j[:len(j)/2])
		c := bytes.Clone(j)
		c[len(c)*2/3] ^= 0x55
		f.Add(c)
	}
	c, err := NewDecoder(Limits{MaxWidth: 2048, MaxHeight: 2048, MaxPixels: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	defer c.Close()
	p := newPureDecoder(Limits{MaxWidth: 2048, MaxHeight: 2048, MaxPixels: 1 << 20})
	f.Fuzz(func(t *testing.T, j []byte) {
		cw, ch, _, cerr := c.Decode(j, 2, nil)
		pw, ph, _, perr := p.Decode(j, 2, nil)
		if cerr == nil && perr == nil && (cw != pw || ch != ph) {
			t.Fatalf("cgo %dx%d, purego %dx%d", cw, ch, pw, ph)
		}
	})
}

// generatedJPEGs are the committed seeds: small gradients libjpeg-turbo
// encoded at 4:4:4, 4:2:0, 4:2:2 and gray.
func generatedJPEGs(t testing.TB) map[string][]byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzBackendsAgree", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no seeds in testdata/fuzz/FuzzBackendsAgree (TestWriteDiffSeeds writes them): %v", err)
	}
	out := map[string][]byte{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(string(raw), "\n", 3)
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("seed %s: %v", f, err)
		}
		out[filepath.Base(f)] = []byte(s)
	}
	return out
}

// TestWriteDiffSeeds regenerates testdata/fuzz/FuzzBackendsAgree when
// TURBOJPEG_WRITE_FUZZ_SEEDS=1.
func TestWriteDiffSeeds(t *testing.T) {
	if os.Getenv("TURBOJPEG_WRITE_FUZZ_SEEDS") != "1" {
		t.Skip("set TURBOJPEG_WRITE_FUZZ_SEEDS=1 to regenerate the seeds")
	}
	e, err := NewEncoder()
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	dir := filepath.Join("testdata", "fuzz", "FuzzBackendsAgree")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, sub := range []Subsamp{Subsamp444, Subsamp420, Subsamp422, SubsampGray} {
		j, err := e.Encode(nil, gradient(40, 24), 40, 24, 120, 85, sub)
		if err != nil {
			t.Fatal(err)
		}
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", j)
		if err := os.WriteFile(filepath.Join(dir, "gradient-"+strings.ReplaceAll(sub.String(), ":", "")), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// videoFrames are three 1280x720 frames of the shared sample video as
// JPEGs (ffmpeg extracts them; absent video or ffmpeg: none, with a
// note).
func videoFrames(t *testing.T) map[string][]byte {
	const video = "/work/shared/data/pan720p.mp4"
	if _, err := os.Stat(video); err != nil {
		t.Logf("sample video %s absent (it lives outside the repository): comparing generated images only", video)
		return nil
	}
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		t.Logf("ffmpeg not installed (make deps): comparing generated images only")
		return nil
	}
	dir := t.TempDir()
	cmd := exec.Command(ffmpeg, "-loglevel", "error", "-i", video, "-vf", "select=not(mod(n\\,60))", "-vsync", "vfr",
		"-frames:v", "3", "-q:v", "3", filepath.Join(dir, "frame-%d.jpg"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ffmpeg: %v: %s", err, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jpg"))
	out := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	return out
}
