package httpserve

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestHTTPClosesIdleConnections: a client that keeps a connection open
// after its request must not hold it (and a server goroutine) forever.
func TestHTTPClosesIdleConnections(t *testing.T) {
	if DefaultTimeouts.Idle <= 0 || DefaultTimeouts.Read <= 0 || DefaultTimeouts.Write <= 0 {
		t.Fatalf("DefaultTimeouts must set idle, read and write timeouts: %+v", DefaultTimeouts)
	}
	if DefaultTimeouts.Write < 10*time.Second {
		t.Fatalf("write timeout %s would cut a slow /metrics scrape", DefaultTimeouts.Write)
	}
	// Same server, shorter idle timeout, so the test does not wait 60 s.
	short := DefaultTimeouts
	short.Idle = 200 * time.Millisecond
	srv := NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}), short)
	if srv.IdleTimeout != short.Idle || srv.ReadTimeout != short.Read || srv.WriteTimeout != short.Write {
		t.Fatalf("NewServer ignores its timeouts: %+v", srv)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	defer func() {
		_ = srv.Close()
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	}()

	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != "ok" || resp.Close {
		t.Fatalf("want a kept-alive 200 ok, got close=%v %q", resp.Close, body)
	}
	// Now idle: the server must close the connection. The deadline is a
	// bound for the poll, far above the idle timeout.
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, err = br.ReadByte()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the idle keep-alive connection was still open after 10 s")
	}
	if err == nil || !(errors.Is(err, io.EOF) || strings.Contains(err.Error(), "reset")) {
		t.Fatalf("want the server to close the idle connection, got %v", err)
	}
}
