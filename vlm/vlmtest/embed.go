package vlmtest

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
)

const embeddingsPath = "/v1/embeddings"

// maxEmbedInputs is the API's limit on the inputs of one request.
const maxEmbedInputs = 2048

// EmbedRequest is an embeddings request that passed the checks.
type EmbedRequest struct {
	Model string
	// Input: the texts in order (a single string input is one text).
	Input          []string
	EncodingFormat string // as sent ("" when absent)
	Retry          string
}

type embedder struct {
	model    string
	vector   func(text string) []float64
	requests []EmbedRequest
}

// Embeddings serves POST /v1/embeddings for model, answering each input
// text with vector(text) after the faults (which any endpoint's requests
// take in turn). vector must be deterministic and safe for concurrent
// use. Without it the endpoint answers 404, as for an unknown model.
func (s *Server) Embeddings(model string, vector func(text string) []float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.embed.model, s.embed.vector = model, vector
}

// EmbedRequests returns the embeddings requests that passed the checks,
// in arrival order (faulted ones included).
func (s *Server) EmbedRequests() []EmbedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]EmbedRequest(nil), s.embed.requests...)
}

func (s *Server) serveEmbeddings(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	model, vector := s.embed.model, s.embed.vector
	s.mu.Unlock()
	req, status, err := s.checkEmbed(r, model)
	if err == nil && vector == nil {
		status, err = http.StatusNotFound, fmt.Errorf("the model %q does not exist (no embeddings scripted)", req.Model)
	}
	if err != nil {
		s.refuse(w, status, err)
		return
	}
	s.mu.Lock()
	s.embed.requests = append(s.embed.requests, req)
	s.mu.Unlock()
	if rep, ok := s.fault(); ok && s.faulted(w, r, rep) {
		return
	}
	data := make([]any, len(req.Input))
	tokens := 0
	for i, text := range req.Input {
		v := vector(text)
		var enc any = v
		if req.EncodingFormat == "base64" {
			enc = float32Base64(v)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": enc}
		tokens += len(text)/4 + 1
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": req.Model, "data": data,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
}

// checkEmbed reads and checks an embeddings request as the real API
// would: the key, the model, input a non-empty string or a list of 1 to
// 2048 non-empty strings, encoding_format "float" or "base64" if given.
func (s *Server) checkEmbed(r *http.Request, model string) (EmbedRequest, int, error) {
	var req EmbedRequest
	if r.Method != http.MethodPost {
		return req, http.StatusMethodNotAllowed, fmt.Errorf("%s %s: embeddings want POST", r.Method, r.URL.Path)
	}
	body, status, err := s.authorizedBody(r)
	if err != nil {
		return req, status, err
	}
	var wr struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		EncodingFormat *string         `json:"encoding_format"`
	}
	if err := json.Unmarshal(body, &wr); err != nil {
		return req, http.StatusBadRequest, fmt.Errorf("body is not JSON: %v", err)
	}
	req.Model, req.Retry = wr.Model, r.Header.Get("X-Stainless-Retry-Count")
	if wr.Model == "" || wr.Model != model {
		return req, http.StatusNotFound, fmt.Errorf("the model %q does not exist", wr.Model)
	}
	if wr.EncodingFormat != nil {
		if req.EncodingFormat = *wr.EncodingFormat; req.EncodingFormat != "float" && req.EncodingFormat != "base64" {
			return req, http.StatusBadRequest, fmt.Errorf("encoding_format %q: want \"float\" or \"base64\"", req.EncodingFormat)
		}
	}
	if req.Input, err = embedInput(wr.Input); err != nil {
		return req, http.StatusBadRequest, err
	}
	return req, 0, nil
}

func embedInput(raw json.RawMessage) ([]string, error) {
	var one string
	if err := json.Unmarshal(raw, &one); err == nil {
		if one == "" {
			return nil, fmt.Errorf("input cannot be an empty string")
		}
		return []string{one}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("input must be a string or a list of strings (token lists are not scripted): %v", err)
	}
	if len(list) == 0 || len(list) > maxEmbedInputs {
		return nil, fmt.Errorf("input: %d items, want 1 to %d", len(list), maxEmbedInputs)
	}
	for i, t := range list {
		if t == "" {
			return nil, fmt.Errorf("input[%d] cannot be an empty string", i)
		}
	}
	return list, nil
}

// float32Base64 is a vector as the API's base64 encoding has it:
// little-endian float32s.
func float32Base64(v []float64) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(x)))
	}
	return base64.StdEncoding.EncodeToString(b)
}
