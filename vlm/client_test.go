package vlm_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/vlm"
	"github.com/edged-robotics/edged/vlm/vlmtest"
)

const (
	testKey   = "sk-test-SECRET-0123456789"
	testModel = "test-vlm"
)

func testJPEG(t *testing.T, w int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, w, 8)), nil); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func testRequest(t *testing.T) vlm.Request {
	return vlm.Request{
		System:     "answer in JSON",
		Parts:      []vlm.Part{{Text: "sheet 1"}, {JPEG: testJPEG(t, 16)}, {Text: "sheet 2"}, {JPEG: testJPEG(t, 24)}},
		SchemaName: "label",
		Schema: map[string]any{"type": "object", "additionalProperties": false, "required": []string{"label"},
			"properties": map[string]any{"label": map[string]any{"type": "string"}}},
	}
}

func TestComplete(t *testing.T) {
	ok := vlmtest.Reply{Content: `{"label":"pick"}`}
	cases := []struct {
		name     string
		faults   []vlmtest.Reply
		key      string
		timeout  time.Duration
		attempts int
		minWait  time.Duration
		wantErr  error
		wantCode int
	}{
		{name: "answered", attempts: 1},
		{name: "429 waits Retry-After", faults: []vlmtest.Reply{{Status: 429, RetryAfter: "1"}}, attempts: 2, minWait: 900 * time.Millisecond},
		{name: "500s retried", faults: []vlmtest.Reply{{Status: 500}, {Status: 503}}, attempts: 3},
		{name: "500s reported", faults: []vlmtest.Reply{{Status: 500}, {Status: 500}, {Status: 500}}, attempts: 3, wantCode: 500},
		{name: "hung retried", faults: []vlmtest.Reply{{Hang: true}}, timeout: 200 * time.Millisecond, attempts: 2},
		{name: "hung reported", faults: []vlmtest.Reply{{Hang: true}, {Hang: true}, {Hang: true}}, timeout: 200 * time.Millisecond, attempts: 3, wantErr: vlm.ErrTimeout},
		{name: "wrong key", key: "sk-wrong-KEY-987654321", attempts: 1, wantCode: 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := vlmtest.New(t, testKey, testModel, func(vlmtest.Request) vlmtest.Reply { return ok }, c.faults...)
			key := testKey
			if c.key != "" {
				key = c.key
			}
			cl, err := vlm.New(vlm.Config{BaseURL: srv.URL, APIKey: key, Model: testModel, Timeout: c.timeout, MaxRetries: 2})
			if err != nil {
				t.Fatal(err)
			}
			req := testRequest(t)
			start := time.Now()
			resp, err := cl.Complete(context.Background(), req)
			took := time.Since(start)
			if resp.Attempts != c.attempts {
				t.Errorf("attempts %d, want %d", resp.Attempts, c.attempts)
			}
			if took < c.minWait {
				t.Errorf("took %v, want at least %v (Retry-After)", took, c.minWait)
			}
			var se *vlm.StatusError
			switch {
			case c.wantErr != nil && !errors.Is(err, c.wantErr):
				t.Fatalf("err %v, want %v", err, c.wantErr)
			case c.wantCode != 0 && (!errors.As(err, &se) || se.Status != c.wantCode):
				t.Fatalf("err %v, want status %d", err, c.wantCode)
			case c.wantErr == nil && c.wantCode == 0 && err != nil:
				t.Fatal(err)
			}
			if err != nil {
				if strings.Contains(err.Error(), key) {
					t.Fatalf("the key is in the error: %v", err)
				}
				return
			}
			if resp.Content != ok.Content || resp.Usage.Prompt <= 2*258 || resp.Usage.Completion == 0 || resp.Latency <= 0 {
				t.Fatalf("response %+v", resp)
			}
			got := srv.Requests()
			last := got[len(got)-1]
			if imgs := last.Images(); len(imgs) != 2 || !bytes.Equal(imgs[0], req.Parts[1].JPEG) || !bytes.Equal(imgs[1], req.Parts[3].JPEG) {
				t.Fatalf("images not sent as the exact bytes in order")
			}
			if last.SchemaName != "label" || last.System != req.System || last.Text() != "sheet 1\nsheet 2\n" {
				t.Fatalf("request %+v", last)
			}
			if r := srv.Refused(); len(r) > 0 {
				t.Fatalf("refused: %v", r)
			}
		})
	}
}

func TestEnvironment(t *testing.T) {
	srv := vlmtest.New(t, testKey, testModel, func(vlmtest.Request) vlmtest.Reply { return vlmtest.Reply{Content: "{}"} })
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_API_KEY", testKey)
	cl, err := vlm.New(vlm.Config{Model: testModel})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Complete(context.Background(), testRequest(t)); err != nil {
		t.Fatal(err)
	}
}

func TestRPM(t *testing.T) {
	srv := vlmtest.New(t, testKey, testModel, func(vlmtest.Request) vlmtest.Reply { return vlmtest.Reply{Content: "{}"} })
	cl, err := vlm.New(vlm.Config{BaseURL: srv.URL, APIKey: testKey, Model: testModel, RPM: 600})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range 3 {
		if _, err := cl.Complete(context.Background(), testRequest(t)); err != nil {
			t.Fatal(err)
		}
	}
	if took := time.Since(start); took < 190*time.Millisecond {
		t.Fatalf("3 requests at 600 per minute took %v, want >= 200ms", took)
	}
}

func TestKeyFromFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "key")
	if err := os.WriteFile(p, []byte(testKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := vlm.KeyFromFile(p); err != nil || k != testKey {
		t.Fatalf("%q, %v", k, err)
	}
	if err := os.WriteFile(p, []byte(" \n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := vlm.KeyFromFile(p); err == nil {
		t.Fatal("empty key file accepted")
	}
}

var _ = http.StatusOK
