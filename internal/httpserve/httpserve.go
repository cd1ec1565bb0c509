package httpserve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Timeouts bound what one HTTP client can hold: a slow or idle client
// must not pin a connection (and its goroutine) forever.
type Timeouts struct {
	ReadHeader, Read, Write, Idle time.Duration
}

// DefaultTimeouts: a request (headers and body) must arrive within 10 s;
// a response, /metrics included (a few hundred KiB rendered in well
// under a second), must be written within 30 s; a keep-alive connection
// idle for 60 s is closed (Prometheus scrapes every 15-60 s and simply
// reconnects).
var DefaultTimeouts = Timeouts{ReadHeader: 5 * time.Second, Read: 10 * time.Second,
	Write: 30 * time.Second, Idle: 60 * time.Second}

// NewServer is an http.Server for h with timeouts t and a 64 KiB cap on
// request headers.
func NewServer(h http.Handler, t Timeouts) *http.Server {
	return &http.Server{Handler: h, ReadHeaderTimeout: t.ReadHeader, ReadTimeout: t.Read,
		WriteTimeout: t.Write, IdleTimeout: t.Idle, MaxHeaderBytes: 64 << 10}
}

// Start listens on addr (host:port; port 0 picks a free one) and serves
// h with DefaultTimeouts until stop is called; stop shuts the server
// down, letting requests in flight finish for up to 2 s, and waits.
// what names the setting for errors ("http.listen", "--listen").
func Start(addr, what string, h http.Handler, log *slog.Logger) (bound net.Addr, stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %s: %w (pick a free port, or set %s to off)", what, addr, err, what)
	}
	srv := NewServer(h, DefaultTimeouts)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("http server stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
	log.Info("http listening", "addr", ln.Addr().String())
	return ln.Addr(), func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
		<-done
	}, nil
}

// Health answers a /healthz request: 200 and {"ready": true} when
// problems is empty, else 503 and {"ready": false, "problems": [...]},
// so a probe (systemd, Kubernetes, a load balancer) reads the status
// and an operator the reasons.
func Health(w http.ResponseWriter, problems []string) {
	w.Header().Set("Content-Type", "application/json")
	if len(problems) > 0 {
		w.WriteHeader(http.StatusServiceUnavailable)
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"ready": len(problems) == 0, "problems": problems})
}
