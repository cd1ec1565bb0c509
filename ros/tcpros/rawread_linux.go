//go:build linux

package tcpros

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// SocketReader returns a reader of conn whose reads do not wake the Go
// runtime's sysmon thread: each read of a non-blocking socket is a raw
// read(2) (it never blocks; on EAGAIN the goroutine parks on the
// netpoller as before, and deadlines and Close still apply). A plain
// read goes through entersyscall, which wakes a sleeping sysmon; at 1 kHz
// of small messages that was most of the runtime's wake-ups per message
// and about a sixth of edged's ingest CPU (issue 25, perf on bench-ros).
// Connections that are not sockets are returned as they are.
func SocketReader(conn net.Conn) io.Reader {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return conn
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return conn
	}
	r := &rawReader{conn: conn, rc: rc, lowat: 1}
	r.readFn = r.read // made once: a closure per Read allocated per read
	return r
}

type rawReader struct {
	conn   net.Conn
	rc     syscall.RawConn
	readFn func(fd uintptr) bool
	p      []byte // the current Read's buffer and result, for readFn
	n      int
	errno  syscall.Errno
	want   int // bytes the caller still needs (wakeAt), 0: any
	lowat  int // the socket's SO_RCVLOWAT as last set
	reads  int // read(2) calls so far (the tests count wake-ups with it)
}

// read is one raw read(2) into r.p; false (wait for readiness) on EAGAIN,
// after raising the socket's low-water mark to what the caller waits for.
func (r *rawReader) read(fd uintptr) bool {
	m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.p[0])), uintptr(len(r.p)))
	r.n, r.errno = int(m), e
	r.reads++
	if e == 0 {
		r.want = max(0, r.want-int(m))
	}
	if e != syscall.EAGAIN {
		return e != syscall.EINTR
	}
	r.setLowWater(fd, max(1, min(r.want, len(r.p))))
	return false
}

// setLowWater sets SO_RCVLOWAT: Linux then signals the socket readable
// (wakes the netpoller) only once n bytes are there, so a 100 KB camera
// frame arriving in loopback segments wakes its reader once, not once
// per segment (4-5 reads and wake-ups per frame before, issue 25). The
// kernel caps n at half the receive buffer and signals at once when n
// bytes are already there; a non-blocking read still returns what there
// is, so a mark too high costs only a later wake-up, never a stall
// (FIN and errors wake regardless). Best effort: an error keeps 1.
func (r *rawReader) setLowWater(fd uintptr, n int) {
	if n == r.lowat {
		return
	}
	v := int32(n)
	_, _, e := syscall.RawSyscall6(syscall.SYS_SETSOCKOPT, fd, syscall.SOL_SOCKET, syscall.SO_RCVLOWAT,
		uintptr(unsafe.Pointer(&v)), unsafe.Sizeof(v), 0)
	if e == 0 {
		r.lowat = n
	}
}

// wakeAt tells the reader the caller needs n more bytes before it can
// go on (0: any): see setLowWater.
func (r *rawReader) wakeAt(n int) { r.want = n }

func (r *rawReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	r.p = p
	err := r.rc.Read(r.readFn)
	r.p = nil
	n, errno := r.n, r.errno
	switch {
	case err != nil: // closed, or a deadline: as conn.Read reports them
		return 0, r.opError(err)
	case errno != 0:
		return 0, r.opError(os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (r *rawReader) opError(err error) error {
	return &net.OpError{Op: "read", Net: r.conn.LocalAddr().Network(), Source: r.conn.LocalAddr(), Addr: r.conn.RemoteAddr(), Err: err}
}
