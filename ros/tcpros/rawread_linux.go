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
	r := &rawReader{conn: conn, rc: rc}
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
}

// read is one raw read(2) into r.p; false (wait for readiness) on EAGAIN.
func (r *rawReader) read(fd uintptr) bool {
	m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&r.p[0])), uintptr(len(r.p)))
	r.n, r.errno = int(m), e
	return e != syscall.EAGAIN && e != syscall.EINTR
}

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
