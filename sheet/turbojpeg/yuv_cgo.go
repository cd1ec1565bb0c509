//go:build cgo && !purego

package turbojpeg

/*
#cgo noescape edged_decompress_yuv
#cgo noescape edged_compress_yuv
#cgo nocallback edged_decompress_yuv
#cgo nocallback edged_compress_yuv
#include <turbojpeg.h>

// Decodes into the caller's planes at the scale whose size is w x h,
// after checking that the header is the one the caller sized the planes
// for (a header that changed cannot make TurboJPEG write past them).
// Returns 0, -1 (TurboJPEG error) or -2 (header mismatch).
static int edged_decompress_yuv(tjhandle t, const unsigned char *buf, unsigned long n,
		int fullW, int fullH, int sub, unsigned char *y, unsigned char *cb, unsigned char *cr,
		int sy, int sc0, int sc1, int w, int h) {
	int hw = 0, hh = 0, hs = 0, cs = 0;
	if (tjDecompressHeader3(t, buf, n, &hw, &hh, &hs, &cs) != 0)
		return -1;
	if (hw != fullW || hh != fullH || hs != sub)
		return -2;
	unsigned char *planes[3] = {y, cb, cr};
	int strides[3] = {sy, sc0, sc1};
	return tjDecompressToYUVPlanes(t, buf, n, planes, w, strides, h, 0);
}

// Compresses planes into the caller's buffer (never reallocated);
// returns the JPEG size, or -1 on error.
static long edged_compress_yuv(tjhandle t, const unsigned char *y, const unsigned char *cb,
		const unsigned char *cr, int sy, int sc0, int sc1, int w, int h, int sub, int q,
		unsigned char *out, unsigned long cap) {
	const unsigned char *planes[3] = {y, cb, cr};
	int strides[3] = {sy, sc0, sc1};
	unsigned char *buf = out;
	unsigned long size = cap;
	if (tjCompressFromYUVPlanes(t, planes, w, strides, h, sub, &buf, &size, q, TJFLAG_NOREALLOC) != 0)
		return -1;
	return (long)size;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// DecodeYUVInto decodes jpeg, whose header hd the caller read with Header,
// at num/8 into dst's planes (hd.Subsamp's layout, PlaneWidth and
// PlaneHeight of the scaled size): no colour conversion, no chroma
// upsampling. Planes too short for the scaled image are ErrArgument; a
// header that does not match the data is ErrCorrupt, checked before
// anything is written.
func (d *Decoder) DecodeYUVInto(jpeg []byte, hd Header, num int, dst YUV) (w, h int, err error) {
	w, h, err = checkYUVInto(jpeg, hd, num, dst)
	if err != nil {
		return 0, 0, err
	}
	if err := d.limits.Check(hd.Width, hd.Height); err != nil {
		return 0, 0, err
	}
	rc := C.edged_decompress_yuv(d.h, (*C.uchar)(unsafe.Pointer(&jpeg[0])), C.ulong(len(jpeg)),
		C.int(hd.Width), C.int(hd.Height), C.int(hd.Subsamp),
		planePtr(dst, 0), planePtr(dst, 1), planePtr(dst, 2),
		C.int(dst.Strides[0]), C.int(dst.Strides[1]), C.int(dst.Strides[2]), C.int(w), C.int(h))
	switch rc {
	case 0:
		return w, h, nil
	case -2:
		return 0, 0, fmt.Errorf("%w: decode to planes: the header is not %dx%d %s (read it with Header)", ErrCorrupt, hd.Width, hd.Height, hd.Subsamp)
	}
	err = fmt.Errorf("%w: decode to planes: %s", ErrCorrupt, d.errStr())
	d.reset()
	return 0, 0, err
}

// EncodeYUV compresses a w x h planar image with subsampling sub (src's
// layout) at quality 1..100, writing into dst's storage (grown to the
// worst-case size, tjBufSize, when too small). Returns the JPEG.
func (e *Encoder) EncodeYUV(dst []byte, src YUV, w, h, quality int, sub Subsamp) ([]byte, error) {
	if err := checkEncodeYUV(src, w, h, quality, sub); err != nil {
		return nil, err
	}
	bound := int(C.tjBufSize(C.int(w), C.int(h), C.int(sub)))
	if bound <= 0 {
		return nil, fmt.Errorf("%w: encode planes %dx%d: no buffer size", ErrArgument, w, h)
	}
	out := grow(dst[:0], bound)
	n := C.edged_compress_yuv(e.h, planePtr(src, 0), planePtr(src, 1), planePtr(src, 2),
		C.int(src.Strides[0]), C.int(src.Strides[1]), C.int(src.Strides[2]), C.int(w), C.int(h),
		C.int(sub), C.int(quality), (*C.uchar)(unsafe.Pointer(&out[0])), C.ulong(bound))
	if n < 0 {
		return nil, fmt.Errorf("turbojpeg: encode planes %dx%d: %s", w, h, C.GoString(C.tjGetErrorStr2(e.h)))
	}
	return out[:n], nil
}

// planePtr is plane c's first byte, or nil for a plane the image does
// not have (gray: TurboJPEG reads only Y).
func planePtr(p YUV, c int) *C.uchar {
	if len(p.Planes[c]) == 0 {
		return nil
	}
	return (*C.uchar)(unsafe.Pointer(&p.Planes[c][0]))
}
