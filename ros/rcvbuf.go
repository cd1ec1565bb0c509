package ros

import (
	"os"
	"strconv"
	"strings"
	"sync"
)

// Socket receive buffers: the kernel's buffer is what carries a
// subscriber through a stall (scheduled out on a loaded host, a GC, a
// slow Handler) before the publisher's own queue overflows and it drops
// messages for this subscriber alone. Setting SO_RCVBUF fixes the buffer
// at twice the value asked (the kernel's bookkeeping) and turns the
// kernel's autotuning off; left alone, autotuning grows a lagging
// connection's buffer up to net.ipv4.tcp_rmem's maximum, as it does for
// roscpp's subscribers. On a host whose tcp_rmem maximum was raised to
// 32 MiB, a fixed 4 MiB (8 MiB in the kernel) carried edged through a
// quarter of the stall roscpp rode out: about 100 ms of one 720p camera
// against 400 ms (bench-ros, ss -tm: rb8388608 against rb33554432).

// maxFixedReadBuffer is the most a connection asks for with SO_RCVBUF
// (the kernel holds twice it): room for a few large frames while the
// reader is scheduled out.
const maxFixedReadBuffer = 4 << 20

// readBufferSize is the SO_RCVBUF to ask for a subscriber connection,
// or 0 to leave the kernel's autotuning in charge: topics of small
// messages get no more than a message's worth (at least 256 KiB), and
// topics of large ones the autotuning that reaches further than
// maxFixedReadBuffer would (autotuneMax: tcp_rmem's maximum, 0 when
// unknown), else maxFixedReadBuffer.
func readBufferSize(maxMessageBytes, autotuneMax int) int {
	want := min(maxFixedReadBuffer, max(256<<10, maxMessageBytes))
	if want == maxFixedReadBuffer && autotuneMax > 2*want {
		return 0
	}
	return want
}

// autotuneMax reads net.ipv4.tcp_rmem's maximum once (0 where there is
// none, as off Linux).
var autotuneMax = sync.OnceValue(func() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/tcp_rmem")
	if err != nil {
		return 0
	}
	return parseTCPRmemMax(string(b))
})

// parseTCPRmemMax returns the third of tcp_rmem's "min default max"
// fields, 0 when malformed.
func parseTCPRmemMax(s string) int {
	f := strings.Fields(s)
	if len(f) != 3 {
		return 0
	}
	n, err := strconv.Atoi(f[2])
	if err != nil || n < 0 {
		return 0
	}
	return n
}
