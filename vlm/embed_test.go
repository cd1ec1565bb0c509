package vlm_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/vlm"
	"github.com/edged-robotics/edged/vlm/vlmtest"
)

const testEmbedModel = "test-embed"

// testVector is the script's embedding of a text: a function of it.
func testVector(text string) []float64 {
	return []float64{float64(len(text)), float64(text[0]), 1}
}

func TestEmbed(t *testing.T) {
	texts := []string{"pick", "place cube", "open lid", "pour", "close lid"}
	cases := []struct {
		name     string
		texts    []string
		faults   []vlmtest.Reply
		requests int
		timeout  time.Duration
		wantErr  error
		wantCode int
	}{
		{name: "batched", texts: texts, requests: 3},
		{name: "500 retried", texts: texts[:1], faults: []vlmtest.Reply{{Status: 500}}, requests: 1},
		{name: "500s reported", texts: texts, faults: []vlmtest.Reply{{Status: 500}, {Status: 500}, {Status: 500}}, requests: 1, wantCode: 500},
		{name: "hung reported", texts: texts, faults: []vlmtest.Reply{{Hang: true}, {Hang: true}, {Hang: true}}, requests: 1, timeout: 200 * time.Millisecond, wantErr: vlm.ErrTimeout},
		{name: "empty text refused here", texts: []string{"a", ""}, wantErr: vlm.ErrEmptyText},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := vlmtest.New(t, testKey, testModel, nil, c.faults...)
			srv.Embeddings(testEmbedModel, testVector)
			cl, err := vlm.New(vlm.Config{BaseURL: srv.URL, APIKey: testKey, Model: testEmbedModel, EmbedBatch: 2,
				MaxRetries: 2, Timeout: c.timeout})
			if err != nil {
				t.Fatal(err)
			}
			got, err := cl.Embed(context.Background(), c.texts)
			var se *vlm.StatusError
			switch {
			case c.wantErr != nil && !errors.Is(err, c.wantErr):
				t.Fatalf("err %v, want %v", err, c.wantErr)
			case c.wantCode != 0 && (!errors.As(err, &se) || se.Status != c.wantCode):
				t.Fatalf("err %v, want status %d", err, c.wantCode)
			case c.wantErr == nil && c.wantCode == 0 && err != nil:
				t.Fatal(err)
			}
			if got.Requests != c.requests {
				t.Errorf("%d requests, want %d", got.Requests, c.requests)
			}
			if err != nil {
				if strings.Contains(err.Error(), testKey) {
					t.Fatalf("the key is in the error: %v", err)
				}
				return
			}
			for i, text := range c.texts {
				want := testVector(text)
				if len(got.Vectors[i]) != len(want) || got.Vectors[i][0] != want[0] || got.Vectors[i][1] != want[1] {
					t.Fatalf("vector %d %v, want %v", i, got.Vectors[i], want)
				}
			}
			reqs := srv.EmbedRequests()
			if len(reqs) != len(c.faults)+c.requests || reqs[len(reqs)-1].EncodingFormat != "float" || len(reqs[0].Input) > 2 {
				t.Fatalf("requests %+v", reqs)
			}
			if got.Usage.Prompt == 0 {
				t.Fatal("no usage")
			}
		})
	}
}
