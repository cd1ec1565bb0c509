package ros

import "testing"

// TestReadBufferPlan: large-message topics start with the kernel's
// autotuning where it reaches further than a fixed buffer (bench-ros:
// edged's 8 MiB against roscpp's autotuned 32 MiB) and get the fixed
// buffer after a small first frame (autotuning would keep a 1 kHz
// topic's at a few hundred KiB); elsewhere the fixed buffer at once;
// small-message topics stay bounded.
func TestReadBufferPlan(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		maxMessage, autotune int
		now, ifSmall         int
	}{
		{"images, autotuning up to 32 MiB", 64 << 20, 32 << 20, 0, 4 << 20},
		{"images, the default 6 MiB ceiling", 64 << 20, 6 << 20, 4 << 20, 0},
		{"images, a ceiling equal to the fixed buffer", 64 << 20, 8 << 20, 4 << 20, 0},
		{"images, no tcp_rmem (off Linux)", 64 << 20, 0, 4 << 20, 0},
		{"small messages stay bounded", 64 << 10, 32 << 20, 256 << 10, 0},
		{"a 1 MiB cap gets a message's worth", 1 << 20, 32 << 20, 1 << 20, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now, ifSmall := readBufferPlan(tc.maxMessage, tc.autotune)
			if now != tc.now || ifSmall != tc.ifSmall {
				t.Errorf("readBufferPlan(%d, %d) = %d, %d, want %d, %d", tc.maxMessage, tc.autotune, now, ifSmall, tc.now, tc.ifSmall)
			}
		})
	}
}

func TestParseTCPRmemMax(t *testing.T) {
	for in, want := range map[string]int{
		"4096\t131072\t33554432\n": 33554432,
		"4096 131072 6291456":      6291456,
		"":                         0,
		"4096 131072":              0,
		"4096 131072 lots":         0,
		"4096 131072 -1":           0,
	} {
		if got := parseTCPRmemMax(in); got != want {
			t.Errorf("parseTCPRmemMax(%q) = %d, want %d", in, got, want)
		}
	}
}
