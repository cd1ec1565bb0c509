//go:build cgo && !purego

package turbojpeg

/*
#cgo LDFLAGS: -lturbojpeg
#cgo noescape edged_header
#cgo noescape edged_decompress
#cgo noescape edged_compress
#cgo nocallback edged_header
#cgo nocallback edged_decompress
#cgo nocallback edged_compress
#include <stdlib.h>
#include <turbojpeg.h>

typedef struct { int rc, w, h, sub; } edged_hdr;

static edged_hdr edged_header(tjhandle t, const unsigned char *buf, unsigned long n) {
	edged_hdr r = {0, 0, 0, 0};
	int cs = 0;
	r.rc = tjDecompressHeader3(t, buf, n, &r.w, &r.h, &r.sub, &cs);
	return r;
}

static int edged_decompress(tjhandle t, const unsigned char *buf, unsigned long n,
		unsigned char *dst, int w, int pitch, int h) {
	return tjDecompress2(t, buf, n, dst, w, pitch, h, TJPF_RGB, 0);
}

// Compresses into the caller's buffer (never reallocated); returns the
// JPEG size, or -1 on error.
static long edged_compress(tjhandle t, const unsigned char *src, int w, int pitch, int h,
		int sub, int q, unsigned char *out, unsigned long cap) {
	unsigned char *buf = out;
	unsigned long size = cap;
	if (tjCompress2(t, src, w, pitch, h, TJPF_RGB, &buf, &size, sub, q, TJFLAG_NOREALLOC) != 0)
		return -1;
	return (long)size;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Decoder decodes JPEGs with one reused TurboJPEG handle. Not safe for
// concurrent use: one per goroutine.
type Decoder struct {
	h      C.tjhandle
	limits Limits
}

// NewDecoder returns a decoder enforcing limits (zero fields: defaults).
func NewDecoder(limits Limits) (*Decoder, error) {
	h := C.tjInitDecompress()
	if h == nil {
		return nil, fmt.Errorf("turbojpeg: tjInitDecompress: %s", C.GoString(C.tjGetErrorStr2(nil)))
	}
	return &Decoder{h: h, limits: limits.orDefault()}, nil
}

// Close frees the handle. The decoder must not be used afterwards.
func (d *Decoder) Close() {
	if d.h != nil {
		C.tjDestroy(d.h)
		d.h = nil
	}
}

// Header reads the JPEG header and checks the dimensions against the limits.
func (d *Decoder) Header(jpeg []byte) (Header, error) {
	if len(jpeg) == 0 {
		return Header{}, ErrEmpty
	}
	r := C.edged_header(d.h, (*C.uchar)(unsafe.Pointer(&jpeg[0])), C.ulong(len(jpeg)))
	if r.rc != 0 {
		err := fmt.Errorf("%w: header: %s", ErrCorrupt, d.errStr())
		d.reset()
		return Header{}, err
	}
	hd := Header{Width: int(r.w), Height: int(r.h), Subsamp: Subsamp(r.sub)}
	if err := d.limits.Check(hd.Width, hd.Height); err != nil {
		return Header{}, err
	}
	return hd, nil
}

// Decode decodes jpeg to packed RGB at a DCT scale of num/8 into dst
// (grown if too small) and returns the scaled size and the pixels.
func (d *Decoder) Decode(jpeg []byte, num int, dst []byte) (w, h int, rgb []byte, err error) {
	if err := checkScale(num); err != nil {
		return 0, 0, nil, err
	}
	hd, err := d.Header(jpeg)
	if err != nil {
		return 0, 0, nil, err
	}
	w, h = Scaled(hd.Width, num), Scaled(hd.Height, num)
	rgb = grow(dst, RGBSize(w, h))
	if err := d.decompress(jpeg, rgb, w, 3*w, h); err != nil {
		return 0, 0, nil, err
	}
	return w, h, rgb, nil
}

// DecodeInto decodes jpeg, whose header hd the caller read with Header,
// at num/8 straight into dst with rows pitch bytes apart (a tile's place
// in a sheet canvas: no intermediate buffer). dst must hold the scaled
// image (ErrArgument otherwise); a header that does not match the data
// cannot write outside it (TurboJPEG never writes more than w x h).
func (d *Decoder) DecodeInto(jpeg []byte, hd Header, num int, dst []byte, pitch int) (w, h int, err error) {
	w, h, err = checkInto(jpeg, hd, num, len(dst), pitch)
	if err != nil {
		return 0, 0, err
	}
	return w, h, d.decompress(jpeg, dst, w, pitch, h)
}

// decompress decodes jpeg to w x h packed RGB at dst, rows pitch apart.
func (d *Decoder) decompress(jpeg, dst []byte, w, pitch, h int) error {
	rc := C.edged_decompress(d.h, (*C.uchar)(unsafe.Pointer(&jpeg[0])), C.ulong(len(jpeg)),
		(*C.uchar)(unsafe.Pointer(&dst[0])), C.int(w), C.int(pitch), C.int(h))
	if rc != 0 {
		kind := "error"
		if C.tjGetErrorCode(d.h) == C.TJERR_WARNING {
			kind = "warning"
		}
		err := fmt.Errorf("%w: decode (%s): %s", ErrCorrupt, kind, d.errStr())
		d.reset()
		return err
	}
	return nil
}

// reset replaces the handle after a failure: libturbojpeg 2.1 leaves a
// handle whose header read failed in a state where the next header read
// returns 0x0 without an error. Errors are rare, so a fresh handle is cheap.
func (d *Decoder) reset() {
	if h := C.tjInitDecompress(); h != nil {
		C.tjDestroy(d.h)
		d.h = h
	}
}

func (d *Decoder) errStr() string { return C.GoString(C.tjGetErrorStr2(d.h)) }

// Encoder encodes packed RGB with one reused TurboJPEG handle. Not safe
// for concurrent use: one per goroutine.
type Encoder struct {
	h C.tjhandle
}

// NewEncoder returns an encoder.
func NewEncoder() (*Encoder, error) {
	h := C.tjInitCompress()
	if h == nil {
		return nil, fmt.Errorf("turbojpeg: tjInitCompress: %s", C.GoString(C.tjGetErrorStr2(nil)))
	}
	return &Encoder{h: h}, nil
}

// Close frees the handle. The encoder must not be used afterwards.
func (e *Encoder) Close() {
	if e.h != nil {
		C.tjDestroy(e.h)
		e.h = nil
	}
}

// Encode compresses a w x h packed RGB image (rows stride bytes apart) at
// quality 1..100 with subsampling sub, writing into dst's storage (grown to
// the worst-case size, tjBufSize, when too small). Returns the JPEG.
func (e *Encoder) Encode(dst, rgb []byte, w, h, stride, quality int, sub Subsamp) ([]byte, error) {
	if err := checkEncodeArgs(rgb, w, h, stride, quality, sub); err != nil {
		return nil, err
	}
	bound := int(C.tjBufSize(C.int(w), C.int(h), C.int(sub)))
	if bound <= 0 {
		return nil, fmt.Errorf("%w: encode %dx%d: no buffer size", ErrArgument, w, h)
	}
	out := grow(dst[:0], bound)
	n := C.edged_compress(e.h, (*C.uchar)(unsafe.Pointer(&rgb[0])), C.int(w), C.int(stride), C.int(h),
		C.int(sub), C.int(quality), (*C.uchar)(unsafe.Pointer(&out[0])), C.ulong(bound))
	if n < 0 {
		return nil, fmt.Errorf("turbojpeg: encode %dx%d: %s", w, h, C.GoString(C.tjGetErrorStr2(e.h)))
	}
	return out[:n], nil
}

// Backend names the implementation compiled in.
const Backend = "libturbojpeg"
