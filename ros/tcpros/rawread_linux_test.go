package tcpros

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"os"
	"testing"
	"time"
)

// socketPair returns both ends of a loopback TCP connection.
func socketPair(t *testing.T) (client, server net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return client, server
}

// The raw reader behaves as conn.Read does: frames arrive whole (large
// ones across many reads), EOF ends the stream, a deadline reports
// os.ErrDeadlineExceeded without losing bytes, Close unblocks a read.
func TestSocketReader(t *testing.T) {
	frame := func(n int) []byte {
		b := make([]byte, 4+n)
		binary.LittleEndian.PutUint32(b, uint32(n))
		for i := range n {
			b[4+i] = byte(i * 7)
		}
		return b
	}
	tests := []struct {
		name string
		run  func(t *testing.T, r io.Reader, local, peer net.Conn)
	}{
		{"frames small and large", func(t *testing.T, r io.Reader, _, peer net.Conn) {
			sizes := []int{0, 1, 300, 3 << 20, 5}
			go func() {
				for _, n := range sizes {
					if _, err := peer.Write(frame(n)); err != nil {
						return
					}
				}
			}()
			fr := NewFrameReader(r, 0, nil)
			for _, n := range sizes {
				b, err := fr.Next()
				if err != nil {
					t.Fatalf("frame of %d: %v", n, err)
				}
				if !bytes.Equal(b.B, frame(n)[4:]) {
					t.Fatalf("frame of %d: body differs", n)
				}
			}
		}},
		{"EOF", func(t *testing.T, r io.Reader, _, peer net.Conn) {
			peer.Close()
			if _, err := r.Read(make([]byte, 8)); err != io.EOF {
				t.Fatalf("got %v, want io.EOF", err)
			}
		}},
		{"deadline then more", func(t *testing.T, r io.Reader, local, peer net.Conn) {
			_ = local.SetReadDeadline(time.Now().Add(20 * time.Millisecond))
			_, err := r.Read(make([]byte, 8))
			var ne net.Error
			if !errors.Is(err, os.ErrDeadlineExceeded) || !errors.As(err, &ne) || !ne.Timeout() {
				t.Fatalf("got %v, want a net.Error wrapping os.ErrDeadlineExceeded", err)
			}
			_ = local.SetReadDeadline(time.Time{})
			_, _ = peer.Write([]byte("abc"))
			got, err := io.ReadAll(io.LimitReader(r, 3))
			if err != nil || string(got) != "abc" {
				t.Fatalf("after the deadline: %q, %v", got, err)
			}
		}},
		{"close unblocks", func(t *testing.T, r io.Reader, local, _ net.Conn) {
			done := make(chan error, 1)
			go func() { _, err := r.Read(make([]byte, 8)); done <- err }()
			time.AfterFunc(10*time.Millisecond, func() { local.Close() })
			select {
			case err := <-done:
				if !errors.Is(err, net.ErrClosed) {
					t.Fatalf("got %v, want net.ErrClosed", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("read not unblocked by Close")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			local, peer := socketPair(t)
			r := SocketReader(local)
			if _, raw := r.(*rawReader); !raw {
				t.Fatalf("SocketReader(%T) = %T, want the raw reader", local, r)
			}
			tt.run(t, r, local, peer)
		})
	}
}

// A read allocates nothing (a closure per Read once allocated per read).
func TestSocketReaderAllocs(t *testing.T) {
	local, peer := socketPair(t)
	r := SocketReader(local)
	const runs = 100
	if _, err := peer.Write(make([]byte, 16*(runs+1))); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	allocs := testing.AllocsPerRun(runs, func() {
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("%.1f allocations per read, want 0", allocs)
	}
}

// A frame body arriving in many segments wakes its reader about once:
// the socket's low-water mark is the rest of the body (SO_RCVLOWAT), so
// the netpoller is not woken per segment. Counted as the reader's
// read(2) calls while the peer sends a 400 KB body in 40 paced writes:
// each would have been a wake-up and a read.
func TestSocketReaderWakesOncePerBody(t *testing.T) {
	local, peer := socketPair(t)
	_ = local.(*net.TCPConn).SetReadBuffer(4 << 20)
	r := SocketReader(local).(*rawReader)
	fr := NewFrameReader(r, 0, nil)
	const n, chunks = 400 << 10, 40
	body := bytes.Repeat([]byte{7}, n)
	go func() {
		hdr := binary.LittleEndian.AppendUint32(nil, n)
		_, _ = peer.Write(append(hdr, body[:n/chunks]...))
		for i := 1; i < chunks; i++ {
			time.Sleep(time.Millisecond) // pacing: segments arrive apart, as a camera's do
			_, _ = peer.Write(body[i*n/chunks : (i+1)*n/chunks])
		}
	}()
	b, err := fr.Next()
	if err != nil || !bytes.Equal(b.B, body) {
		t.Fatalf("frame: %v", err)
	}
	if r.reads > 5 {
		t.Fatalf("%d read(2) calls for one %d-byte body sent in %d writes, want a few (one wake-up per body)", r.reads, n, chunks)
	}
	// A small frame after it wakes the reader at once: the mark went back
	// to 1 (else the read waits for the deadline).
	go func() {
		time.Sleep(10 * time.Millisecond) // the reader parks first
		_, _ = peer.Write([]byte{3, 0, 0, 0, 'a', 'b', 'c'})
	}()
	_ = local.SetReadDeadline(time.Now().Add(10 * time.Second))
	if b, err := fr.Next(); err != nil || string(b.B) != "abc" {
		t.Fatalf("small frame after the body: %v", err)
	}
}
