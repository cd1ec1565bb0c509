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
	return &rawReader{conn: conn, rc: rc}
}

type rawReader struct {
	conn net.Conn
	rc   syscall.RawConn
}

func (r *rawReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := r.rc.Read(func(fd uintptr) bool {
		m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		n, errno = int(m), e
		return errno != syscall.EAGAIN && errno != syscall.EINTR
	})
	switch {
	case err != nil: // closed, or a deadline: as conn.Read reports them
		return 0, &net.OpError{Op: "read", Net: r.conn.LocalAddr().Network(), Source: r.conn.LocalAddr(), Addr: r.conn.RemoteAddr(), Err: err}
	case errno != 0:
		return 0, &net.OpError{Op: "read", Net: r.conn.LocalAddr().Network(), Source: r.conn.LocalAddr(), Addr: r.conn.RemoteAddr(), Err: os.NewSyscallError("read", errno)}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}
