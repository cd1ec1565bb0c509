package xmlrpc

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestClientServer(t *testing.T) {
	s := NewServer()
	s.Register("echo", func(_ context.Context, p []any) (any, error) { return p, nil })
	s.Register("fail", func(context.Context, []any) (any, error) { return nil, errors.New("boom") })
	s.Register("fault", func(context.Context, []any) (any, error) { return nil, &Fault{Code: 7, Message: "seven"} })
	s.Register("big", func(context.Context, []any) (any, error) { return strings.Repeat("x", 4096), nil })
	s.Register("slow", func(ctx context.Context, _ []any) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	srv := httptest.NewServer(s)
	defer srv.Close()
	c := NewClient(srv.URL)
	ctx := context.Background()

	v, err := c.Call(ctx, "echo", "a", 1)
	if err != nil || len(v.([]any)) != 2 {
		t.Fatalf("echo: %v %v", v, err)
	}
	var f *Fault
	if _, err := c.Call(ctx, "fail"); !errors.As(err, &f) || f.Code != 1 || f.Message != "boom" {
		t.Fatalf("fail: %v", err)
	}
	if _, err := c.Call(ctx, "fault"); !errors.As(err, &f) || f.Code != 7 {
		t.Fatalf("fault: %v", err)
	}
	if _, err := c.Call(ctx, "missing"); !errors.As(err, &f) || f.Code != -32601 {
		t.Fatalf("missing: %v", err)
	}
	small := &Client{URL: srv.URL, MaxResponseBytes: 1024}
	if _, err := small.Call(ctx, "big"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("big: %v", err)
	}
	quick := &Client{URL: srv.URL, Timeout: 50 * time.Millisecond}
	if _, err := quick.Call(ctx, "slow"); err == nil {
		t.Fatal("slow call did not time out")
	}
	limited := NewServer()
	limited.MaxRequestBytes = 100
	limited.Register("echo", func(_ context.Context, p []any) (any, error) { return p, nil })
	srv2 := httptest.NewServer(limited)
	defer srv2.Close()
	if _, err := NewClient(srv2.URL).Call(ctx, "echo", strings.Repeat("y", 200)); !errors.As(err, &f) || !strings.Contains(f.Message, "larger") {
		t.Fatalf("large request: %v", err)
	}
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %s", resp.Status)
	}
}
