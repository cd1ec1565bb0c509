//go:build !linux

package tcpros

import (
	"io"
	"net"
)

// SocketReader returns conn: the raw-read path is Linux only.
func SocketReader(conn net.Conn) io.Reader { return conn }
