package sheet

import (
	"bytes"
	"fmt"
	"testing"
)

// TestResizeFastPathsExact: the padded 3-tap horizontal loop and the
// rolling row window give exactly the pixels of the generic taps over a
// whole horizontally scaled frame.
func TestResizeFastPathsExact(t *testing.T) {
	for _, tc := range []struct{ sw, sh, dw, dh int }{
		{320, 180, 224, 126}, {252, 189, 224, 126}, {160, 90, 153, 86}, {224, 126, 224, 126},
		{3, 3, 2, 2}, {5, 4, 3, 1}, {640, 360, 224, 126}, {100, 80, 99, 79},
	} {
		t.Run(fmt.Sprintf("%dx%d to %dx%d", tc.sw, tc.sh, tc.dw, tc.dh), func(t *testing.T) {
			src := make([]byte, tc.sw*tc.sh*3)
			for i := range src {
				src[i] = byte(i*7 + i/97)
			}
			var rs resizer
			got := make([]byte, tc.dw*tc.dh*3)
			rs.resize(got, tc.dw, tc.dh, tc.dw*3, src, tc.sw, tc.sh, tc.sw*3)
			if want := genericResize(src, tc.sw, tc.sh, tc.dw, tc.dh); !bytes.Equal(got, want) {
				t.Fatal("fast paths differ from the generic taps")
			}
		})
	}
}

// genericResize is the area filter written plainly: every tap of both
// axes, in 8.8 fixed point between the passes, as resize rounds.
func genericResize(src []byte, sw, sh, dw, dh int) []byte {
	var x, y axis
	x.build(sw, dw)
	y.build(sh, dh)
	tmp := make([]int, sh*dw*3)
	for r := 0; r < sh; r++ {
		for i := 0; i < dw; i++ {
			for c := 0; c < 3; c++ {
				s := 0
				for k := 0; k < int(x.n[i]); k++ {
					s += int(x.w[int(x.off[i])+k]) * int(src[(r*sw+int(x.first[i])+k)*3+c])
				}
				tmp[(r*dw+i)*3+c] = (s + 1<<(weightBits-9)) >> (weightBits - 8)
			}
		}
	}
	out := make([]byte, dw*dh*3)
	for j := 0; j < dh; j++ {
		for v := 0; v < dw*3; v++ {
			s := 0
			for k := 0; k < int(y.n[j]); k++ {
				s += int(y.w[int(y.off[j])+k]) * tmp[(int(y.first[j])+k)*dw*3+v]
			}
			out[j*dw*3+v] = byte(min((s+1<<(weightBits+7))>>(weightBits+8), 255))
		}
	}
	return out
}
