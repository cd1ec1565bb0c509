package xmlrpc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// DefaultMaxResponseBytes caps a response body when Client.MaxResponseBytes
// is zero. rosmaster's getSystemState on a big robot is well under 1 MiB.
const DefaultMaxResponseBytes = 16 << 20

// DefaultTimeout bounds one call when the context has no earlier deadline
// and Client.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// Client calls methods on one XML-RPC server.
type Client struct {
	// URL of the server, e.g. http://localhost:11311/.
	URL string
	// HTTP is the client used; nil means a shared client that opens a new
	// connection per call (ROS peers restart often and keep-alive
	// connections to a dead peer only produce confusing errors).
	HTTP *http.Client
	// Timeout per call; 0 means DefaultTimeout.
	Timeout time.Duration
	// MaxResponseBytes caps the response body; 0 means
	// DefaultMaxResponseBytes.
	MaxResponseBytes int64
}

var defaultHTTP = &http.Client{Transport: &http.Transport{
	DisableKeepAlives:     true,
	ResponseHeaderTimeout: DefaultTimeout,
	Proxy:                 nil, // ROS traffic is local: never through an HTTP proxy
}}

// NewClient returns a Client for url with the defaults.
func NewClient(url string) *Client { return &Client{URL: url} }

// Call invokes method with params and returns the decoded result. A remote
// fault is returned as a *Fault.
func (c *Client) Call(ctx context.Context, method string, params ...any) (any, error) {
	body, err := EncodeCall(method, params...)
	if err != nil {
		return nil, err
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("xmlrpc: %s to %s: %w", method, c.URL, err)
	}
	req.Header.Set("Content-Type", "text/xml")
	hc := c.HTTP
	if hc == nil {
		hc = defaultHTTP
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("xmlrpc: %s to %s: %w", method, c.URL, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("xmlrpc: %s to %s: HTTP %s", method, c.URL, resp.Status)
	}
	limit := c.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("xmlrpc: %s to %s: reading response: %w", method, c.URL, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("xmlrpc: %s to %s: response larger than %d bytes", method, c.URL, limit)
	}
	v, err := DecodeResponse(data)
	if err != nil {
		var f *Fault
		if errors.As(err, &f) {
			return nil, f
		}
		return nil, fmt.Errorf("xmlrpc: %s to %s: %w", method, c.URL, err)
	}
	return v, nil
}
