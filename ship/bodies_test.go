package ship

import (
	"bytes"
	"testing"

	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink/wire"
)

// contactSheet is a contact sheet as the builder emits it: 20 tiles and
// a JPEG of a 720p camera's size (the bytes are not decoded here).
func contactSheet() *sheet.Sheet {
	m := meta(140, 20)
	m.Rows, m.Columns, m.TileWidth, m.TileHeight, m.Width, m.Height, m.Quality = 4, 5, 224, 126, 1120, 504, 84
	jpeg := make([]byte, 120<<10)
	for i := range jpeg {
		jpeg[i] = byte(i * 7)
	}
	return &sheet.Sheet{Meta: *m, JPEG: jpeg}
}

// TestSheetBodyScratch: a body encoded in reused scratch is the body
// SheetBody makes, sheet after sheet.
func TestSheetBodyScratch(t *testing.T) {
	var sc bodyScratch
	for _, segment := range []int{-1, 3, -1} {
		sh := contactSheet()
		want, err := SheetBody(sh, segment)
		if err != nil {
			t.Fatal(err)
		}
		got, err := sc.encode(sh, segment)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("segment %d: scratch body differs (%v)", segment, err)
		}
		var b wire.SheetBody
		if _, err := b.UnmarshalMsg(got); err != nil || !bytes.Equal(b.JPEG, sh.JPEG) || b.Meta[len(b.Meta)-1] != '}' {
			t.Fatalf("segment %d: %v, meta %q", segment, err, b.Meta)
		}
	}
}

// BenchmarkSheetBody encodes a contact sheet's wire body, as
// Shipper.Sheet does for every sheet: fresh (SheetBody) and in the
// Shipper's reused scratch; bytes are the sheet's JPEG.
func BenchmarkSheetBody(b *testing.B) {
	sh := contactSheet()
	b.Run("fresh", func(b *testing.B) {
		b.SetBytes(int64(len(sh.JPEG)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := SheetBody(sh, -1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("scratch", func(b *testing.B) {
		var sc bodyScratch
		b.SetBytes(int64(len(sh.JPEG)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := sc.encode(sh, -1); err != nil {
				b.Fatal(err)
			}
		}
	})
}
