// Package freeport is the one way tests find a loopback port for a
// component they start (mosquitto, versitygw, a ROS master): ask the
// kernel for a free one and release it. The port was free a moment ago;
// a component that loses the race fails to listen and the test says so.
// Test helpers only; nothing in a production binary imports it.
package freeport

import (
	"net"
	"testing"
)

// Port returns a TCP port on 127.0.0.1 that was free a moment ago.
func Port(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}
