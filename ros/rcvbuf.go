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
// kernel's autotuning off; left alone, autotuning grows a connection's
// buffer with the rate it is drained at, up to net.ipv4.tcp_rmem's
// maximum, as it does for roscpp's subscribers. On a host whose tcp_rmem maximum was raised to
// 32 MiB, a fixed 4 MiB (8 MiB in the kernel) carried edged through a
// quarter of the stall roscpp rode out: about 100 ms of one 720p camera
// against 400 ms (bench-ros, ss -tm: rb8388608 against rb33554432).

// maxFixedReadBuffer is the most a connection asks for with SO_RCVBUF
// (the kernel holds twice it): room for a few large frames while the
// reader is scheduled out.
const maxFixedReadBuffer = 4 << 20

// readBufferPlan is the SO_RCVBUF to ask for a subscriber connection at
// once (0: none), and the one to ask for once its first frame shows the
// topic's messages small (ifSmall, 0: none). Topics of small messages
// (MaxMessageBytes) get no more than a message's worth, at least
// 256 KiB. Otherwise a fixed maxFixedReadBuffer, unless the kernel's
// autotuning reaches further (autotuneMax: tcp_rmem's maximum, 0 when
// unknown): the connection starts autotuned, which keeps it if its
// frames are large (a camera's grow its buffer within the first
// frames); frames under smallFrame (joint states at 1 kHz) never grow
// it past a few hundred KiB, a few dozen milliseconds of them, so such
// a connection gets the fixed buffer after its first frame.
func readBufferPlan(maxMessageBytes, autotuneMax int) (now, ifSmall int) {
	want := min(maxFixedReadBuffer, max(256<<10, maxMessageBytes))
	if want == maxFixedReadBuffer && autotuneMax > 2*want {
		return 0, want
	}
	return want, 0
}

// smallFrame: a connection whose first frame is smaller keeps the fixed
// buffer (readBufferPlan).
const smallFrame = 256 << 10

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
