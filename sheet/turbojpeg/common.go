package turbojpeg

import (
	"errors"
	"fmt"
)

// Errors wrapped by every failure of this package (test with errors.Is).
var (
	// ErrEmpty: the input has zero length.
	ErrEmpty = errors.New("turbojpeg: empty JPEG")
	// ErrCorrupt: the bitstream is not a valid, complete JPEG.
	ErrCorrupt = errors.New("turbojpeg: corrupt JPEG")
	// ErrTooLarge: the header declares dimensions above Limits.
	ErrTooLarge = errors.New("turbojpeg: image too large")
	// ErrArgument: a caller mistake (bad quality, short buffer, bad scale).
	ErrArgument = errors.New("turbojpeg: invalid argument")
)

// Subsamp is the chroma subsampling of a JPEG.
type Subsamp int

// Chroma subsampling values (same numbers as TurboJPEG's TJSAMP_*).
const (
	Subsamp444  Subsamp = 0
	Subsamp422  Subsamp = 1
	Subsamp420  Subsamp = 2
	SubsampGray Subsamp = 3
)

func (s Subsamp) String() string {
	switch s {
	case Subsamp444:
		return "4:4:4"
	case Subsamp422:
		return "4:2:2"
	case Subsamp420:
		return "4:2:0"
	case SubsampGray:
		return "gray"
	default:
		return fmt.Sprintf("subsamp(%d)", int(s))
	}
}

// Header is what a JPEG's header says about the image.
type Header struct {
	Width, Height int
	Subsamp       Subsamp
}

// Limits caps the dimensions a decoder accepts, checked before decoding.
type Limits struct {
	MaxWidth  int // default 16384
	MaxHeight int // default 16384
	MaxPixels int // default 50 megapixels
}

// DefaultLimits are generous for cameras and far below what would exhaust
// a robot's memory (50 MP x 3 bytes = 150 MB at full scale).
var DefaultLimits = Limits{MaxWidth: 16384, MaxHeight: 16384, MaxPixels: 50_000_000}

// Check returns an error wrapping ErrTooLarge (or ErrCorrupt for
// non-positive sizes) when w x h is outside the limits.
func (l Limits) Check(w, h int) error {
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%w: dimensions %dx%d", ErrCorrupt, w, h)
	}
	if w > l.MaxWidth || h > l.MaxHeight || int64(w)*int64(h) > int64(l.MaxPixels) {
		return fmt.Errorf("%w: %dx%d exceeds the limit of %dx%d and %d pixels", ErrTooLarge, w, h, l.MaxWidth, l.MaxHeight, l.MaxPixels)
	}
	return nil
}

func (l Limits) orDefault() Limits {
	if l.MaxWidth <= 0 {
		l.MaxWidth = DefaultLimits.MaxWidth
	}
	if l.MaxHeight <= 0 {
		l.MaxHeight = DefaultLimits.MaxHeight
	}
	if l.MaxPixels <= 0 {
		l.MaxPixels = DefaultLimits.MaxPixels
	}
	return l
}

// Scaled returns a dimension decoded at num/8, rounded up as TurboJPEG does.
func Scaled(dim, num int) int { return (dim*num + 7) / 8 }

// ScaleFor returns the smallest n/8 (1..8) for which the image decodes at
// least minW wide and minH high: the largest DCT reduction that still gives
// enough pixels for a tile. Images smaller than the tile decode at 8/8.
func ScaleFor(w, h, minW, minH int) int {
	for num := 1; num < 8; num++ {
		if Scaled(w, num) >= minW && Scaled(h, num) >= minH {
			return num
		}
	}
	return 8
}

// RGBSize is the number of bytes of a packed RGB image.
func RGBSize(w, h int) int { return w * h * 3 }

func checkScale(num int) error {
	if num < 1 || num > 8 {
		return fmt.Errorf("%w: scale %d/8 (want 1..8)", ErrArgument, num)
	}
	return nil
}

// checkDecode validates what every decode into a caller's buffer
// (DecodeInto, DecodeYUVInto: op) takes besides the buffer, and returns
// the scaled size.
func checkDecode(op string, jpeg []byte, hd Header, num int) (w, h int, err error) {
	if len(jpeg) == 0 {
		return 0, 0, ErrEmpty
	}
	if err := checkScale(num); err != nil {
		return 0, 0, err
	}
	if hd.Width <= 0 || hd.Height <= 0 {
		return 0, 0, fmt.Errorf("%w: %s: header %dx%d", ErrArgument, op, hd.Width, hd.Height)
	}
	return Scaled(hd.Width, num), Scaled(hd.Height, num), nil
}

// checkInto validates DecodeInto's arguments and returns the scaled size.
func checkInto(jpeg []byte, hd Header, num, n, pitch int) (w, h int, err error) {
	w, h, err = checkDecode("decode into", jpeg, hd, num)
	if err != nil {
		return 0, 0, err
	}
	if pitch < 3*w || n < pitch*(h-1)+3*w {
		return 0, 0, fmt.Errorf("%w: decode %dx%d into %d bytes with pitch %d", ErrArgument, w, h, n, pitch)
	}
	return w, h, nil
}

func checkEncodeArgs(rgb []byte, w, h, stride, quality int, sub Subsamp) error {
	if w <= 0 || h <= 0 || stride < 3*w {
		return fmt.Errorf("%w: encode %dx%d with stride %d", ErrArgument, w, h, stride)
	}
	if len(rgb) < stride*(h-1)+3*w {
		return fmt.Errorf("%w: encode %dx%d needs %d bytes, have %d", ErrArgument, w, h, stride*(h-1)+3*w, len(rgb))
	}
	if quality < 1 || quality > 100 {
		return fmt.Errorf("%w: quality %d (want 1..100)", ErrArgument, quality)
	}
	if sub < Subsamp444 || sub > SubsampGray {
		return fmt.Errorf("%w: subsampling %d", ErrArgument, int(sub))
	}
	return nil
}

// grow returns b resized to n bytes, reusing its storage when it can.
func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]byte, n)
}
