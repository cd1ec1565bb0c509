package turbojpeg

import (
	"errors"
	"fmt"
)

// Planar YCbCr (issue 25's prototype: contact sheets built in the JPEG's
// own colour space skip the YCbCr <-> RGB conversions and the chroma
// resampling of both codecs). Planes are 8-bit, full-range (JFIF), in
// TurboJPEG's layout: the chroma planes of a w x h image are
// PlaneWidth x PlaneHeight (half size, rounded up, for 4:2:0).

// ErrNotSupported: the backend compiled in cannot do this (the purego
// fallback has no planar YCbCr).
var ErrNotSupported = errors.New("turbojpeg: not supported by this backend")

// YUV is a planar image the caller owns: Planes[0] is Y, [1] Cb, [2] Cr
// (only Y for SubsampGray), each with rows Strides[i] bytes apart. The
// planes may be places in larger images (a tile in a sheet's planes).
type YUV struct {
	Planes  [3][]byte
	Strides [3]int
}

// maxStride keeps stride arithmetic far from overflow and within C's int.
const maxStride = 1 << 30

// PlaneWidth is the width of plane comp (0 Y, 1 Cb, 2 Cr) of a w-wide
// image with subsampling sub, as TurboJPEG's tjPlaneWidth.
func PlaneWidth(comp, w int, sub Subsamp) int {
	if comp == 0 || sub == Subsamp444 {
		return w
	}
	return (w + 1) / 2
}

// PlaneHeight is the height of plane comp of an h-high image, as
// TurboJPEG's tjPlaneHeight.
func PlaneHeight(comp, h int, sub Subsamp) int {
	if comp == 0 || sub != Subsamp420 {
		return h
	}
	return (h + 1) / 2
}

// planeCount is the number of planes an image with subsampling sub has.
func planeCount(sub Subsamp) int {
	if sub == SubsampGray {
		return 1
	}
	return 3
}

// checkYUV: every plane of a w x h image with subsampling sub fits in p.
func checkYUV(p YUV, w, h int, sub Subsamp) error {
	if w <= 0 || h <= 0 || w > maxStride || h > maxStride {
		return fmt.Errorf("%w: planar image %dx%d", ErrArgument, w, h)
	}
	if sub < Subsamp444 || sub > SubsampGray {
		return fmt.Errorf("%w: subsampling %d", ErrArgument, int(sub))
	}
	for c := 0; c < planeCount(sub); c++ {
		pw, ph, s, n := PlaneWidth(c, w, sub), PlaneHeight(c, h, sub), p.Strides[c], len(p.Planes[c])
		if s < pw || s > maxStride || n < s*(ph-1)+pw {
			return fmt.Errorf("%w: %s plane %dx%d with stride %d in %d bytes", ErrArgument, sub, pw, ph, s, n)
		}
	}
	return nil
}

// checkYUVInto validates DecodeYUVInto's arguments and returns the
// scaled size.
func checkYUVInto(jpeg []byte, hd Header, num int, dst YUV) (w, h int, err error) {
	w, h, err = checkDecode("decode to planes", jpeg, hd, num)
	if err != nil {
		return 0, 0, err
	}
	return w, h, checkYUV(dst, w, h, hd.Subsamp)
}

// checkEncodeYUV validates EncodeYUV's arguments.
func checkEncodeYUV(src YUV, w, h, quality int, sub Subsamp) error {
	if err := checkYUV(src, w, h, sub); err != nil {
		return err
	}
	if quality < 1 || quality > 100 {
		return fmt.Errorf("%w: quality %d (want 1..100)", ErrArgument, quality)
	}
	return nil
}
