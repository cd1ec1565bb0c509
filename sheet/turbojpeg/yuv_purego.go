//go:build !cgo || purego

package turbojpeg

import "fmt"

// DecodeYUVInto is not supported by the pure-Go fallback: bad arguments
// are ErrArgument as with cgo, anything else ErrNotSupported.
func (d *Decoder) DecodeYUVInto(jpeg []byte, hd Header, num int, dst YUV) (w, h int, err error) {
	if _, _, err := checkYUVInto(jpeg, hd, num, dst); err != nil {
		return 0, 0, err
	}
	return 0, 0, fmt.Errorf("%w: decode to planes (build with cgo and libturbojpeg)", ErrNotSupported)
}

// EncodeYUV is not supported by the pure-Go fallback: bad arguments are
// ErrArgument as with cgo, anything else ErrNotSupported.
func (e *Encoder) EncodeYUV(dst []byte, src YUV, w, h, quality int, sub Subsamp) ([]byte, error) {
	if err := checkEncodeYUV(src, w, h, quality, sub); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%w: encode planes (build with cgo and libturbojpeg)", ErrNotSupported)
}
