package s3

import (
	"context"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/internal/s3test"
)

// TestRequireConditional: a store whose probe found conditional writes
// ignored is refused for shared writers, naming the store and what to
// use; versitygw, which keeps them, opens shared.
func TestRequireConditional(t *testing.T) {
	if err := (&Store{url: "s3://b/p"}).RequireConditional(); err == nil ||
		!strings.Contains(err.Error(), "s3://b/p ignores conditional writes") || !strings.Contains(err.Error(), "versitygw") {
		t.Errorf("a store without conditional writes: %v", err)
	}
	srv := s3test.Start(t)
	if _, err := OpenShared(context.Background(), srv.URL("fleet"), Options{Getenv: srv.Getenv}); err != nil {
		t.Errorf("versitygw opened shared: %v", err)
	}
}
