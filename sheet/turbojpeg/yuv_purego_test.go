//go:build !cgo || purego

package turbojpeg

import (
	"errors"
	"testing"
)

// TestYUVNotSupported: the fallback refuses planar YCbCr with
// ErrNotSupported rather than pretending.
func TestYUVNotSupported(t *testing.T) {
	d, _ := NewDecoder(Limits{})
	e, _ := NewEncoder()
	p := YUV{Planes: [3][]byte{make([]byte, 64), make([]byte, 16), make([]byte, 16)}, Strides: [3]int{8, 4, 4}}
	if _, _, err := d.DecodeYUVInto([]byte{0xFF, 0xD8}, Header{Width: 8, Height: 8, Subsamp: Subsamp420}, 8, p); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("DecodeYUVInto: %v, want ErrNotSupported", err)
	}
	if _, err := e.EncodeYUV(nil, p, 8, 8, 84, Subsamp420); !errors.Is(err, ErrNotSupported) {
		t.Fatalf("EncodeYUV: %v, want ErrNotSupported", err)
	}
}
