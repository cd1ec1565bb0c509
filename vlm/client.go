package vlm

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
	"golang.org/x/time/rate"
)

// Defaults of Config.
const (
	DefaultConcurrency = 4
	DefaultTimeout     = 2 * time.Minute
	DefaultMaxRetries  = 4
	DefaultEmbedBatch  = 256
)

// maxKeyBytes caps a key file before it is read.
const maxKeyBytes = 4096

// Config is how a Client reaches the API.
type Config struct {
	// BaseURL of the API (".../v1"); "": OPENAI_BASE_URL, else OpenAI's.
	BaseURL string
	// APIKey; "": OPENAI_API_KEY.
	APIKey string
	// Model asked for in every request (required).
	Model string
	// Concurrency caps the requests in flight (default 4).
	Concurrency int
	// RPM caps the HTTP attempts per minute, retries included (0: none).
	RPM int
	// Timeout of one attempt (default 2 minutes).
	Timeout time.Duration
	// MaxRetries of one request (default 4; -1: none).
	MaxRetries int
	// EmbedBatch caps the texts of one embeddings request (default 256,
	// at most MaxEmbedBatch).
	EmbedBatch int
	// HTTPClient, for tests (default: the SDK's).
	HTTPClient *http.Client
}

// Client sends chat completion requests.
type Client struct {
	cfg   Config
	oc    openai.Client
	key   string
	slots chan struct{}
	lim   *rate.Limiter
}

// ErrTimeout: no answer within Config.Timeout, on every attempt.
var ErrTimeout = errors.New("vlm: no answer within the timeout")

// KeyFromFile reads an API key from path (a systemd credential:
// $CREDENTIALS_DIRECTORY/NAME), surrounding white space cut.
func KeyFromFile(path string) (string, error) {
	b, err := fsutil.ReadFileCapped(path, maxKeyBytes)
	if err != nil {
		return "", fmt.Errorf("vlm: read the API key file: %w", err)
	}
	k := strings.TrimSpace(string(b))
	if k == "" {
		return "", fmt.Errorf("vlm: the API key file %s is empty", path)
	}
	return k, nil
}

// New makes a Client of cfg.
func New(cfg Config) (*Client, error) {
	if cfg.Model == "" {
		return nil, errors.New("vlm: no model given (--model)")
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	cfg.MaxRetries = max(cfg.MaxRetries, 0)
	if cfg.EmbedBatch <= 0 {
		cfg.EmbedBatch = DefaultEmbedBatch
	}
	cfg.EmbedBatch = min(cfg.EmbedBatch, MaxEmbedBatch)
	c := &Client{cfg: cfg, key: cfg.APIKey, slots: make(chan struct{}, cfg.Concurrency)}
	if c.key == "" {
		c.key = os.Getenv("OPENAI_API_KEY")
	}
	if cfg.RPM > 0 {
		c.lim = rate.NewLimiter(rate.Every(time.Minute/time.Duration(cfg.RPM)), 1)
	}
	opts := []option.RequestOption{
		option.WithMaxRetries(cfg.MaxRetries),
		option.WithRequestTimeout(cfg.Timeout),
		option.WithMiddleware(c.middleware),
	}
	if cfg.BaseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.BaseURL))
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	c.oc = openai.NewClient(opts...)
	return c, nil
}

// Model is the model the client asks for.
func (c *Client) Model() string { return c.cfg.Model }

type attemptsKey struct{}

// middleware runs before every HTTP attempt (retries included): it
// waits for the rate limiter and counts the attempt.
func (c *Client) middleware(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	if c.lim != nil {
		if err := c.lim.Wait(req.Context()); err != nil {
			return nil, err
		}
	}
	if n, ok := req.Context().Value(attemptsKey{}).(*atomic.Int32); ok {
		n.Add(1)
	}
	return next(req)
}

// Part is one user content part: Text, or a JPEG image.
type Part struct {
	Text string
	JPEG []byte
}

// Request is one chat completion: a system prompt, the user's parts in
// order, and the JSON schema the answer must follow.
type Request struct {
	System     string
	Parts      []Part
	SchemaName string
	Schema     map[string]any
}

// Usage is the token count the API reported.
type Usage struct {
	Prompt, Completion int64
}

// Response is the answer of one Complete.
type Response struct {
	// Content is the answer's text (the JSON the schema asked for, when
	// the model obeyed).
	Content  string
	Usage    Usage
	Attempts int
	Latency  time.Duration
}

// DataURL is the data URL of a JPEG: exactly its bytes, base64.
func DataURL(jpeg []byte) string {
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(jpeg)
}

func (c *Client) params(r Request) openai.ChatCompletionNewParams {
	parts := make([]openai.ChatCompletionContentPartUnionParam, 0, len(r.Parts))
	for _, p := range r.Parts {
		if p.JPEG != nil {
			parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: DataURL(p.JPEG)}))
		} else {
			parts = append(parts, openai.TextContentPart(p.Text))
		}
	}
	return openai.ChatCompletionNewParams{
		Model:    c.cfg.Model,
		Messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(r.System), openai.UserMessage(parts)},
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: r.SchemaName, Schema: r.Schema, Strict: openai.Bool(true)},
		}},
	}
}

// Complete sends r and returns the answer. It waits for a slot
// (Config.Concurrency) first; ctx cancels the wait and the request.
func (c *Client) Complete(ctx context.Context, r Request) (Response, error) {
	params := c.params(r)
	var res *openai.ChatCompletion
	resp, err := c.send(ctx, func(actx context.Context) (err error) {
		res, err = c.oc.Chat.Completions.New(actx, params)
		return err
	})
	if err != nil {
		return resp, err
	}
	return c.answer(res, resp)
}

// send runs one request (call, which the SDK retries on 429 and 5xx)
// in a concurrency slot, retrying it here when an attempt times out; the
// Response has the attempts made and the latency, the error is redacted.
func (c *Client) send(ctx context.Context, call func(context.Context) error) (Response, error) {
	select {
	case c.slots <- struct{}{}:
	case <-ctx.Done():
		return Response{}, ctx.Err()
	}
	defer func() { <-c.slots }()
	var n atomic.Int32
	actx := context.WithValue(ctx, attemptsKey{}, &n)
	start := time.Now()
	for timeouts := 0; ; timeouts++ {
		err := call(actx)
		resp := Response{Attempts: int(n.Load()), Latency: time.Since(start)}
		if err == nil {
			return resp, nil
		}
		if ctx.Err() != nil {
			return resp, ctx.Err()
		}
		if !errors.Is(err, context.DeadlineExceeded) {
			return resp, c.failed(err, resp.Attempts)
		}
		if timeouts >= c.cfg.MaxRetries {
			return resp, fmt.Errorf("%w (%s) after %d attempts: raise --timeout, or check that %s answers", ErrTimeout, c.cfg.Timeout, resp.Attempts, c.where())
		}
		if err := wait(ctx, backoff(timeouts)); err != nil {
			return resp, err
		}
	}
}

func (c *Client) answer(res *openai.ChatCompletion, resp Response) (Response, error) {
	resp.Usage = Usage{Prompt: res.Usage.PromptTokens, Completion: res.Usage.CompletionTokens}
	if len(res.Choices) == 0 {
		return resp, errors.New("vlm: the API answered with no choice")
	}
	resp.Content = res.Choices[0].Message.Content
	return resp, nil
}

// failed is the error of a request the API refused or failed: its
// status when it has one, redacted of the key.
func (c *Client) failed(err error, attempts int) error {
	var api *openai.Error
	if errors.As(err, &api) {
		return &StatusError{Status: api.StatusCode, Attempts: attempts, msg: c.redact(api.Message)}
	}
	return fmt.Errorf("vlm: request to %s failed after %d attempts: %s", c.where(), attempts, c.redact(err.Error()))
}

// StatusError is an HTTP error status the API answered with, after the
// retries it deserved.
type StatusError struct {
	Status   int
	Attempts int
	msg      string
}

func (e *StatusError) Error() string {
	hint := ""
	switch {
	case e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden:
		hint = ": check the API key (OPENAI_API_KEY or --api-key-file)"
	case e.Status == http.StatusTooManyRequests:
		hint = ": lower --rpm or --concurrency"
	case e.Status >= 500:
		hint = ": the server failed; try again later"
	}
	return fmt.Sprintf("vlm: the API answered %d %s after %d attempts (%s)%s", e.Status, http.StatusText(e.Status), e.Attempts, e.msg, hint)
}

func (c *Client) where() string {
	if c.cfg.BaseURL != "" {
		return c.cfg.BaseURL
	}
	return "the API (OPENAI_BASE_URL)"
}

// redact removes the key from s.
func (c *Client) redact(s string) string {
	if len(c.key) < 4 {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[redacted]")
}

// backoff before retry n (from 0) of a timed-out attempt.
func backoff(n int) time.Duration { return min(500*time.Millisecond<<n, 8*time.Second) }

func wait(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
