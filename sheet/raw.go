package sheet

import (
	"errors"
	"fmt"

	"github.com/edged-robotics/edged/sheet/turbojpeg"
)

// Errors of frame conversion (test with errors.Is).
var (
	// ErrUnsupportedEncoding: a raw encoding edged cannot convert; the
	// message names it.
	ErrUnsupportedEncoding = errors.New("sheet: unsupported image encoding")
	// ErrBadLayout: width, height, step and data length disagree.
	ErrBadLayout = errors.New("sheet: image size, step and data length disagree")
)

// rawBytesPerPixel returns the bytes per pixel of a supported encoding.
func rawBytesPerPixel(enc string) (int, bool) {
	switch enc {
	case "rgb8", "bgr8":
		return 3, true
	case "rgba8", "bgra8":
		return 4, true
	case "mono8", "8UC1", "bayer_rggb8", "bayer_bggr8", "bayer_gbrg8", "bayer_grbg8":
		return 1, true
	case "mono16", "16UC1", "yuv422", "yuv422_yuy2", "uyvy", "yuyv":
		return 2, true
	}
	return 0, false
}

// CheckRaw validates a raw image's layout against its encoding and limits:
// known encoding, positive size within limits, step >= width x bytes per
// pixel, data length == step x height.
func CheckRaw(enc string, w, h, step, dataLen int, lim turbojpeg.Limits) error {
	bpp, ok := rawBytesPerPixel(enc)
	if !ok {
		return fmt.Errorf("%w %q (supported: rgb8, bgr8, rgba8, bgra8, mono8, mono16, yuv422, yuv422_yuy2, bayer_{rggb,bggr,gbrg,grbg}8)", ErrUnsupportedEncoding, enc)
	}
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%w: %s %dx%d", ErrBadLayout, enc, w, h)
	}
	if err := lim.Check(w, h); err != nil {
		return err
	}
	if int64(step) < int64(w)*int64(bpp) {
		return fmt.Errorf("%w: %s %dx%d needs step >= %d, has %d", ErrBadLayout, enc, w, h, w*bpp, step)
	}
	if int64(dataLen) != int64(step)*int64(h) {
		return fmt.Errorf("%w: %s %dx%d step %d needs %d bytes, has %d", ErrBadLayout, enc, w, h, step, int64(step)*int64(h), dataLen)
	}
	return nil
}

// RawToRGB converts a raw sensor_msgs/Image to packed RGB (w x h x 3) in
// dst, grown when too small. mono16 is stretched by the frame's maximum so
// depth images stay visible; bayer patterns use a simple 2x2 demosaic
// (the tile is downscaled anyway); yuv uses BT.601 limited range.
func RawToRGB(dst []byte, enc string, w, h, step int, bigEndian bool, data []byte, lim turbojpeg.Limits) ([]byte, error) {
	if err := CheckRaw(enc, w, h, step, len(data), lim); err != nil {
		return nil, err
	}
	n := w * h * 3
	if cap(dst) < n {
		dst = make([]byte, n)
	}
	dst = dst[:n]
	switch enc {
	case "rgb8":
		for y := 0; y < h; y++ {
			copy(dst[y*w*3:(y+1)*w*3], data[y*step:])
		}
	case "bgr8", "rgba8", "bgra8":
		convertRGBX(dst, enc, w, h, step, data)
	case "mono8", "8UC1":
		for y := 0; y < h; y++ {
			row, out := data[y*step:y*step+w], dst[y*w*3:]
			for x, v := range row {
				out[3*x], out[3*x+1], out[3*x+2] = v, v, v
			}
		}
	case "mono16", "16UC1":
		convertMono16(dst, w, h, step, bigEndian, data)
	case "yuv422", "uyvy", "yuv422_yuy2", "yuyv":
		convertYUV422(dst, enc == "yuv422_yuy2" || enc == "yuyv", w, h, step, data)
	default: // bayer
		demosaic(dst, enc[6:10], w, h, step, data)
	}
	return dst, nil
}

func convertRGBX(dst []byte, enc string, w, h, step int, data []byte) {
	bpp, ri, bi := 3, 0, 2
	switch enc {
	case "bgr8":
		ri, bi = 2, 0
	case "rgba8":
		bpp = 4
	case "bgra8":
		bpp, ri, bi = 4, 2, 0
	}
	for y := 0; y < h; y++ {
		row, out := data[y*step:y*step+w*bpp], dst[y*w*3:(y+1)*w*3]
		for x := 0; x < w; x++ {
			p := row[x*bpp : x*bpp+3]
			out[3*x], out[3*x+1], out[3*x+2] = p[ri], p[1], p[bi]
		}
	}
}

func convertMono16(dst []byte, w, h, step int, bigEndian bool, data []byte) {
	at := func(row []byte, x int) uint32 {
		if bigEndian {
			return uint32(row[2*x])<<8 | uint32(row[2*x+1])
		}
		return uint32(row[2*x+1])<<8 | uint32(row[2*x])
	}
	var peak uint32
	for y := 0; y < h; y++ {
		row := data[y*step:]
		for x := 0; x < w; x++ {
			peak = max(peak, at(row, x))
		}
	}
	if peak == 0 {
		peak = 1
	}
	for y := 0; y < h; y++ {
		row, out := data[y*step:], dst[y*w*3:]
		for x := 0; x < w; x++ {
			v := byte(at(row, x) * 255 / peak)
			out[3*x], out[3*x+1], out[3*x+2] = v, v, v
		}
	}
}

func clamp8(v int32) byte {
	if v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return byte(v)
}

// yuvToRGB is BT.601 limited range in 16.16 fixed point.
func yuvToRGB(out []byte, y, u, v int32) {
	c := (y - 16) * 76284
	d, e := u-128, v-128
	out[0] = clamp8((c + 104595*e + 32768) >> 16)
	out[1] = clamp8((c - 25690*d - 53281*e + 32768) >> 16)
	out[2] = clamp8((c + 132186*d + 32768) >> 16)
}

// convertYUV422 handles UYVY (yuv422) and YUYV (yuv422_yuy2); a pixel pair
// shares U and V. An odd last pixel uses its pair's chroma.
func convertYUV422(dst []byte, yuy2 bool, w, h, step int, data []byte) {
	yo, uo, vo, y2 := 1, 0, 2, 3 // UYVY
	if yuy2 {
		yo, uo, vo, y2 = 0, 1, 3, 2
	}
	for y := 0; y < h; y++ {
		row, out := data[y*step:y*step+2*w], dst[y*w*3:]
		for x := 0; x < w; x += 2 {
			if x+1 >= w { // odd width: the last macropixel is half present
				p := row[2*x:]
				yuvToRGB(out[3*x:], int32(p[yo&^2]), int32(p[uo&^2]), int32(p[vo&^2]))
				break
			}
			p := row[2*x : 2*x+4]
			u, v := int32(p[uo]), int32(p[vo])
			yuvToRGB(out[3*x:], int32(p[yo]), u, v)
			yuvToRGB(out[3*x+3:], int32(p[y2]), u, v)
		}
	}
}

// demosaic fills each pixel from the 2x2 Bayer cell containing it (clamped
// at odd edges): red and blue from their sample, green averaged.
func demosaic(dst []byte, pattern string, w, h, step int, data []byte) {
	// colour of the sample at parity (y&1, x&1): 0 red, 1 green, 2 blue.
	var col [4]byte
	for i := 0; i < 4; i++ {
		switch pattern[i] {
		case 'r':
			col[i] = 0
		case 'g':
			col[i] = 1
		default:
			col[i] = 2
		}
	}
	for y := 0; y < h; y++ {
		y0 := y &^ 1
		if y0+1 >= h {
			y0 = max(h-2, 0)
		}
		for x := 0; x < w; x++ {
			x0 := x &^ 1
			if x0+1 >= w {
				x0 = max(w-2, 0)
			}
			var sum [3]int
			var cnt [3]int
			for dy := 0; dy < 2 && y0+dy < h; dy++ {
				for dx := 0; dx < 2 && x0+dx < w; dx++ {
					sy, sx := y0+dy, x0+dx
					c := col[(sy&1)*2+(sx&1)]
					sum[c] += int(data[sy*step+sx])
					cnt[c]++
				}
			}
			o := dst[(y*w+x)*3:]
			for c := 0; c < 3; c++ {
				if cnt[c] > 0 {
					o[c] = byte(sum[c] / cnt[c])
				}
			}
		}
	}
}
