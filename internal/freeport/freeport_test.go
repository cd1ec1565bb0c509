package freeport

import (
	"net"
	"strconv"
	"testing"
)

func TestPortIsFree(t *testing.T) {
	p := Port(t)
	if p <= 0 || p > 65535 {
		t.Fatalf("port %d", p)
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
	if err != nil {
		t.Fatalf("the port given cannot be listened on: %v", err)
	}
	l.Close()
}
