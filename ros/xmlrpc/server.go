package xmlrpc

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
)

// DefaultMaxRequestBytes caps a request body when Server.MaxRequestBytes
// is zero.
const DefaultMaxRequestBytes = 4 << 20

// Method handles one XML-RPC method. Returning a *Fault sends that fault;
// any other error is sent as a fault with code 1 and the error's text.
type Method func(ctx context.Context, params []any) (any, error)

// Server is an http.Handler that dispatches methodCalls to registered
// Methods. Register everything before serving.
type Server struct {
	// MaxRequestBytes caps a request body; 0 means DefaultMaxRequestBytes.
	MaxRequestBytes int64

	mu      sync.RWMutex
	methods map[string]Method
}

// NewServer returns an empty Server.
func NewServer() *Server { return &Server{methods: map[string]Method{}} }

// Register binds name to m, replacing an earlier binding.
func (s *Server) Register(name string, m Method) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.methods[name] = m
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "XML-RPC wants POST", http.StatusMethodNotAllowed)
		return
	}
	limit := s.MaxRequestBytes
	if limit <= 0 {
		limit = DefaultMaxRequestBytes
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		http.Error(w, "reading request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if int64(len(data)) > limit {
		writeXML(w, EncodeFault(&Fault{Code: -32700, Message: fmt.Sprintf("request larger than %d bytes", limit)}))
		return
	}
	name, params, err := DecodeCall(data)
	if err != nil {
		writeXML(w, EncodeFault(&Fault{Code: -32700, Message: err.Error()}))
		return
	}
	s.mu.RLock()
	m := s.methods[name]
	s.mu.RUnlock()
	if m == nil {
		writeXML(w, EncodeFault(&Fault{Code: -32601, Message: "method " + name + " not supported"}))
		return
	}
	v, err := m(r.Context(), params)
	if err != nil {
		var f *Fault
		if !errors.As(err, &f) {
			f = &Fault{Code: 1, Message: err.Error()}
		}
		writeXML(w, EncodeFault(f))
		return
	}
	out, err := EncodeResponse(v)
	if err != nil {
		writeXML(w, EncodeFault(&Fault{Code: 1, Message: err.Error()}))
		return
	}
	writeXML(w, out)
}

func writeXML(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "text/xml")
	_, _ = w.Write(b) // the peer hung up: nothing more to do
}
