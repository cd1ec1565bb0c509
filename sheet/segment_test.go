package sheet

import (
	"testing"
	"time"

	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// contactSheets returns the contact sheets of an episode of end seconds
// of a w x h camera with recipe r, one frame per tick, each frame of its
// own colour (frameColour).
func contactSheets(t testing.TB, r Recipe, w, h int, end time.Duration) []Sheet {
	t.Helper()
	ring := newRing(t, ringbuf.Config{})
	var c collector
	b := newTestBuilder(t, ring, r, &c)
	for k := 0; time.Duration(k)*r.Interval < end; k++ {
		f := jpegFrame(testJPEG(t, w, h, frameColour(k)), epoch.Add(time.Duration(k)*r.Interval))
		if err := b.Advance(f.Stamp); err != nil {
			t.Fatal(err)
		}
		if err := ring.Put(&f); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Finish(epoch.Add(end - r.Interval)); err != nil {
		t.Fatal(err)
	}
	out := make([]Sheet, len(c.sheets))
	for i, s := range c.sheets {
		out[i] = *s
	}
	return out
}

func frameColour(k int) [3]byte { return [3]byte{byte(40 + 37*k), byte(200 - 23*k), byte(90 + 61*k)} }

// decodeRGB decodes a JPEG at full scale.
func decodeRGB(t testing.TB, j []byte) (w, h int, pix []byte) {
	t.Helper()
	d, err := turbojpeg.NewDecoder(turbojpeg.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w, h, pix, err = d.Decode(j, 8, nil)
	if err != nil {
		t.Fatal(err)
	}
	return w, h, pix
}

func TestSegmentImageSmoke(t *testing.T) {
	sheets := contactSheets(t, DefaultRecipe(), 64, 48, 25*time.Second)
	j, err := SegmentImage(sheets, 8, 12.5, VLMTile, DefaultQuality)
	if err != nil {
		t.Fatal(err)
	}
	w, h, _ := decodeRGB(t, j)
	if w > VLMTile || h > VLMTile || w == 0 {
		t.Fatalf("%dx%d", w, h)
	}
}
