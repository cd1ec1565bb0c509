// Package httpserve serves edged's operator endpoints: the daemon's
// /metrics, /healthz and status page (http.listen) and the sink's
// /metrics and /healthz (edged sink --listen). It owns the
// server's timeouts, so that no client can pin a connection, and the
// serving goroutine: Start returns a stop function that shuts the
// server down and waits for it.
package httpserve
