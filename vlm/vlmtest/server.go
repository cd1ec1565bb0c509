package vlmtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// maxBody caps a request body before it is read.
const maxBody = 64 << 20

// Part is one user content part as received: Text, or the decoded bytes
// of a JPEG data URL.
type Part struct {
	Text string
	JPEG []byte
}

// Request is a request that passed the checks.
type Request struct {
	Model      string
	System     string
	Parts      []Part
	SchemaName string
	Schema     map[string]any
	// Retry is the SDK's X-Stainless-Retry-Count (0: first attempt).
	Retry string
}

// Images are the request's JPEGs in order.
func (r Request) Images() [][]byte {
	var out [][]byte
	for _, p := range r.Parts {
		if p.JPEG != nil {
			out = append(out, p.JPEG)
		}
	}
	return out
}

// Text is the request's text parts joined by newlines.
func (r Request) Text() string {
	var b strings.Builder
	for _, p := range r.Parts {
		if p.JPEG == nil {
			b.WriteString(p.Text)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// Reply is one scripted answer: a status with its Retry-After, a hung
// request, or Content (the assistant's text) with its usage.
type Reply struct {
	Status     int    // 0: 200
	RetryAfter string // the Retry-After header, with Status
	Hang       bool   // answer nothing until the client gives up
	Content    string
	// Prompt and Completion tokens reported; 0: 258 per image plus one
	// per 4 bytes of text, and one per 4 bytes of Content.
	Prompt, Completion int64
}

// Server is the fake API.
type Server struct {
	// URL is the base URL to give the client (http://127.0.0.1:PORT/v1).
	URL   string
	Key   string
	Model string

	mu       sync.Mutex
	faults   []Reply
	answer   func(Request) Reply
	requests []Request
	refused  []string
	closing  chan struct{}
	embed    embedder
}

// New starts a server that wants key and model, answering with answer
// after the faults; it stops at t's cleanup.
func New(t testing.TB, key, model string, answer func(Request) Reply, faults ...Reply) *Server {
	s := &Server{Key: key, Model: model, answer: answer, faults: faults, closing: make(chan struct{})}
	srv := httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = srv.URL + "/v1"
	t.Cleanup(func() {
		close(s.closing)
		srv.Close()
	})
	return s
}

// Requests returns the requests that passed the checks, in arrival order
// (faulted ones included).
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Refused returns why requests were refused (a 4xx of the checks).
func (s *Server) Refused() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.refused...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == embeddingsPath {
		s.serveEmbeddings(w, r)
		return
	}
	req, status, err := s.check(r)
	if err != nil {
		s.refuse(w, status, err)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	rep, ok := s.fault()
	if !ok {
		rep = s.answer(req)
	}
	s.reply(w, r, req, rep)
}

// refuse answers a request that failed the checks, and records why.
func (s *Server) refuse(w http.ResponseWriter, status int, err error) {
	s.mu.Lock()
	s.refused = append(s.refused, err.Error())
	s.mu.Unlock()
	writeError(w, status, err.Error())
}

// fault takes the next scripted fault, if any is left (whichever
// endpoint the request is for).
func (s *Server) fault() (Reply, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.faults) == 0 {
		return Reply{}, false
	}
	rep := s.faults[0]
	s.faults = s.faults[1:]
	return rep, true
}

func (s *Server) reply(w http.ResponseWriter, r *http.Request, req Request, rep Reply) {
	if s.faulted(w, r, rep) {
		return
	}
	if rep.Prompt == 0 {
		rep.Prompt = int64(258*len(req.Images()) + (len(req.System)+len(req.Text()))/4)
	}
	if rep.Completion == 0 {
		rep.Completion = int64(len(rep.Content)/4 + 1)
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-vlmtest", "object": "chat.completion", "created": time.Now().Unix(), "model": s.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": rep.Content}}},
		"usage": map[string]any{"prompt_tokens": rep.Prompt, "completion_tokens": rep.Completion,
			"total_tokens": rep.Prompt + rep.Completion},
	})
}

// faulted answers rep when it is a fault (a hang or an error status).
func (s *Server) faulted(w http.ResponseWriter, r *http.Request, rep Reply) bool {
	switch {
	case rep.Hang:
		select {
		case <-r.Context().Done():
		case <-s.closing:
		}
		return true
	case rep.Status != 0 && rep.Status != http.StatusOK:
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		writeError(w, rep.Status, "scripted fault")
		return true
	}
	return false
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "code": nil}})
}

// wire is the part of a chat completion request the checks read.
type wire struct {
	Model    string `json:"model"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	ResponseFormat *struct {
		Type       string `json:"type"`
		JSONSchema *struct {
			Name   string         `json:"name"`
			Schema map[string]any `json:"schema"`
			Strict *bool          `json:"strict"`
		} `json:"json_schema"`
	} `json:"response_format"`
}

type wirePart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL *struct {
		URL string `json:"url"`
	} `json:"image_url"`
}

var schemaName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// authorizedBody is what every endpoint checks first, as the real API
// does: the key (401), then a body within maxBody (413).
func (s *Server) authorizedBody(r *http.Request) ([]byte, int, error) {
	if r.Header.Get("Authorization") != "Bearer "+s.Key {
		return nil, http.StatusUnauthorized, fmt.Errorf("incorrect API key provided: %q", r.Header.Get("Authorization"))
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil || len(body) > maxBody {
		return nil, http.StatusRequestEntityTooLarge, fmt.Errorf("body unreadable or over %d bytes", maxBody)
	}
	return body, 0, nil
}

// check reads and checks r as the real API would.
func (s *Server) check(r *http.Request) (Request, int, error) {
	var req Request
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		return req, http.StatusNotFound, fmt.Errorf("%s %s: not chat completions", r.Method, r.URL.Path)
	}
	body, status, err := s.authorizedBody(r)
	if err != nil {
		return req, status, err
	}
	var wr wire
	if err := json.Unmarshal(body, &wr); err != nil {
		return req, http.StatusBadRequest, fmt.Errorf("body is not JSON: %v", err)
	}
	req.Retry = r.Header.Get("X-Stainless-Retry-Count")
	if req.Model = wr.Model; wr.Model != s.Model {
		return req, http.StatusNotFound, fmt.Errorf("the model %q does not exist", wr.Model)
	}
	if err := checkFormat(&wr, &req); err != nil {
		return req, http.StatusBadRequest, err
	}
	if err := checkMessages(&wr, &req); err != nil {
		return req, http.StatusBadRequest, err
	}
	return req, 0, nil
}

func checkFormat(wr *wire, req *Request) error {
	f := wr.ResponseFormat
	if f == nil || f.Type != "json_schema" || f.JSONSchema == nil {
		return fmt.Errorf("response_format must be a json_schema")
	}
	if !schemaName.MatchString(f.JSONSchema.Name) {
		return fmt.Errorf("response_format.json_schema.name %q invalid", f.JSONSchema.Name)
	}
	if f.JSONSchema.Schema["type"] != "object" {
		return fmt.Errorf("response_format.json_schema.schema must be an object schema")
	}
	if f.JSONSchema.Strict != nil && *f.JSONSchema.Strict && f.JSONSchema.Schema["additionalProperties"] != false {
		return fmt.Errorf("strict schema: additionalProperties must be false")
	}
	req.SchemaName, req.Schema = f.JSONSchema.Name, f.JSONSchema.Schema
	return nil
}

func checkMessages(wr *wire, req *Request) error {
	if len(wr.Messages) != 2 || wr.Messages[0].Role != "system" || wr.Messages[1].Role != "user" {
		return fmt.Errorf("messages must be a system then a user message")
	}
	if err := json.Unmarshal(wr.Messages[0].Content, &req.System); err != nil || req.System == "" {
		return fmt.Errorf("messages[0].content must be a non-empty string")
	}
	var parts []wirePart
	if err := json.Unmarshal(wr.Messages[1].Content, &parts); err != nil || len(parts) == 0 {
		return fmt.Errorf("messages[1].content must be an array of content parts")
	}
	for i, p := range parts {
		part, err := checkPart(p)
		if err != nil {
			return fmt.Errorf("messages[1].content[%d]: %w", i, err)
		}
		req.Parts = append(req.Parts, part)
	}
	return nil
}

const dataPrefix = "data:image/jpeg;base64,"

func checkPart(p wirePart) (Part, error) {
	switch p.Type {
	case "text":
		if p.Text == "" {
			return Part{}, fmt.Errorf("empty text")
		}
		return Part{Text: p.Text}, nil
	case "image_url":
		if p.ImageURL == nil || !strings.HasPrefix(p.ImageURL.URL, dataPrefix) {
			return Part{}, fmt.Errorf("image_url.url is not a JPEG data URL")
		}
		b, err := base64.StdEncoding.DecodeString(p.ImageURL.URL[len(dataPrefix):])
		if err != nil {
			return Part{}, fmt.Errorf("image_url.url: bad base64: %v", err)
		}
		if _, err := jpeg.DecodeConfig(bytes.NewReader(b)); err != nil {
			return Part{}, fmt.Errorf("image_url.url does not decode as JPEG: %v", err)
		}
		return Part{JPEG: b}, nil
	}
	return Part{}, fmt.Errorf("unknown part type %q", p.Type)
}
