//go:build cgo && !purego

package turbojpeg

import (
	"bytes"
	"fmt"
	"math"
	"testing"
)

// Planar decoding against packed RGB. libjpeg-turbo's RGB decode
// upsamples chroma smoothly (fancy upsampling) where yuvToRGB replicates
// it; beyond that the two share the IDCT, so the difference is the
// colour conversion's rounding plus chroma edges. Measured: about 1
// level mean per channel on the sample video at 2/8 and on the
// 1280x720 gradient, 2.6 on the 40x24 4:2:0 seed, 11.5 on its 10x6
// (1/4 scale) decode, where every chroma sample spans a quarter of the
// image. The bounds are diff_test.go's for the two backends (scaled
// outputs of >= 32 px a side, and tiny ones); a swapped plane or a wrong
// stride exceeds them by far.

// yuvImage allocates packed planes for a w x h image.
func yuvImage(w, h int, sub Subsamp) YUV {
	var p YUV
	for c := 0; c < planeCount(sub); c++ {
		pw, ph := PlaneWidth(c, w, sub), PlaneHeight(c, h, sub)
		p.Planes[c], p.Strides[c] = make([]byte, pw*ph), pw
	}
	return p
}

func clamp8(v float64) byte { return byte(min(max(math.Round(v), 0), 255)) }

// yuvToRGB converts planes to packed RGB (JFIF, chroma replicated).
func yuvToRGB(p YUV, w, h int, sub Subsamp) []byte {
	out := make([]byte, RGBSize(w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			Y := float64(p.Planes[0][y*p.Strides[0]+x])
			cb, cr := 0.0, 0.0
			if sub != SubsampGray {
				cx := x * PlaneWidth(1, w, sub) / w
				cy := y * PlaneHeight(1, h, sub) / h
				cb = float64(p.Planes[1][cy*p.Strides[1]+cx]) - 128
				cr = float64(p.Planes[2][cy*p.Strides[2]+cx]) - 128
			}
			o := out[3*(y*w+x):]
			o[0], o[1], o[2] = clamp8(Y+1.402*cr), clamp8(Y-0.344136*cb-0.714136*cr), clamp8(Y+1.772*cb)
		}
	}
	return out
}

// rgbToYUV420 converts packed RGB to 4:2:0 planes (JFIF, chroma the
// mean of each 2x2 block).
func rgbToYUV420(rgb []byte, w, h int) YUV {
	p := yuvImage(w, h, Subsamp420)
	cw, ch := PlaneWidth(1, w, Subsamp420), PlaneHeight(1, h, Subsamp420)
	sum := make([][3]float64, cw*ch)
	cnt := make([]float64, cw*ch)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			px := rgb[3*(y*w+x):]
			r, g, b := float64(px[0]), float64(px[1]), float64(px[2])
			p.Planes[0][y*w+x] = clamp8(0.299*r + 0.587*g + 0.114*b)
			i := (y/2)*cw + x/2
			sum[i][1] += -0.168736*r - 0.331264*g + 0.5*b + 128
			sum[i][2] += 0.5*r - 0.418688*g - 0.081312*b + 128
			cnt[i]++
		}
	}
	for i := range cnt {
		p.Planes[1][i], p.Planes[2][i] = clamp8(sum[i][1]/cnt[i]), clamp8(sum[i][2]/cnt[i])
	}
	return p
}

func yuvTestJPEGs(t *testing.T) map[string][]byte {
	js := map[string][]byte{"gradient-1280x720": encodeTest(t, 1280, 720)}
	for name, j := range generatedJPEGs(t) {
		js[name] = j
	}
	for name, j := range videoFrames(t) {
		js[name] = j
	}
	return js
}

// TestDecodeYUVMatchesRGB: the same JPEG decoded to planes (then
// converted) and to packed RGB agrees within maxYUVMeanDiff at the
// sheet's scale and at full size, for every subsampling.
func TestDecodeYUVMatchesRGB(t *testing.T) {
	d, err := NewDecoder(Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for name, j := range yuvTestJPEGs(t) {
		for _, num := range []int{2, 8} {
			t.Run(fmt.Sprintf("%s at %d of 8", name, num), func(t *testing.T) {
				hd, err := d.Header(j)
				if err != nil {
					t.Fatal(err)
				}
				w, h, want, err := d.Decode(j, num, nil)
				if err != nil {
					t.Fatal(err)
				}
				p := yuvImage(w, h, hd.Subsamp)
				gw, gh, err := d.DecodeYUVInto(j, hd, num, p)
				if err != nil || gw != w || gh != h {
					t.Fatalf("DecodeYUVInto = %dx%d, %v; want %dx%d", gw, gh, err, w, h)
				}
				mean, worst := diffStats(yuvToRGB(p, w, h, hd.Subsamp), want)
				t.Logf("%dx%d %s: mean %.2f, worst %d", w, h, hd.Subsamp, mean, worst)
				bound := maxMeanDiffScaled
				if min(w, h) < 32 {
					bound = maxMeanDiffTiny
				}
				if mean > bound || worst > maxPixelDiff {
					t.Fatalf("planes differ from RGB: mean %.2f (bound %.1f), worst %d", mean, bound, worst)
				}
			})
		}
	}
}

// TestEncodeYUVMatchesRGB: a 4:2:0 image encoded from planes and the
// same image encoded from packed RGB decode alike, and alike the source.
func TestEncodeYUVMatchesRGB(t *testing.T) {
	d, _ := NewDecoder(Limits{})
	defer d.Close()
	e, _ := NewEncoder()
	defer e.Close()
	for name, j := range yuvTestJPEGs(t) {
		t.Run(name, func(t *testing.T) {
			w, h, rgb, err := d.Decode(j, 2, nil)
			if err != nil {
				t.Fatal(err)
			}
			fromRGB, err := e.Encode(nil, rgb, w, h, 3*w, 90, Subsamp420)
			if err != nil {
				t.Fatal(err)
			}
			fromRGB = bytes.Clone(fromRGB)
			fromYUV, err := e.EncodeYUV(nil, rgbToYUV420(rgb, w, h), w, h, 90, Subsamp420)
			if err != nil {
				t.Fatal(err)
			}
			_, _, a, err := d.Decode(fromRGB, 8, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _, b, err := d.Decode(fromYUV, 8, nil)
			if err != nil {
				t.Fatal(err)
			}
			// 4:2:0 loses the chroma detail of a video frame either way
			// (about 6 levels against the source): the planes must lose
			// no more than packed RGB does, and decode like it.
			viaRGB, _ := diffStats(a, rgb)
			viaYUV, _ := diffStats(b, rgb)
			mean, worst := diffStats(a, b)
			t.Logf("RGB vs planes: mean %.2f worst %d; against the source: RGB %.2f, planes %.2f", mean, worst, viaRGB, viaYUV)
			if mean > maxEncodeMeanDiff || worst > maxPixelDiff || viaYUV > viaRGB+1 {
				t.Fatalf("planes encode unlike RGB: mean %.2f (bound %.1f), worst %d; against the source: RGB %.2f, planes %.2f",
					mean, maxEncodeMeanDiff, worst, viaRGB, viaYUV)
			}
		})
	}
}
