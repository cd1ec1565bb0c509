package vlmtest

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestEmbedChecks: embeddings requests the real API would refuse are
// refused with its status; good ones (a string, a list, float or base64)
// are answered with the script's vector of each text, in order.
func TestEmbedChecks(t *testing.T) {
	cases := []struct {
		name, key, body string
		status, vectors int
	}{
		{"a string", "k", `{"model":"e","input":"pick"}`, 200, 1},
		{"a list, float", "k", `{"model":"e","input":["pick","place"],"encoding_format":"float"}`, 200, 2},
		{"base64", "k", `{"model":"e","input":["pick"],"encoding_format":"base64"}`, 200, 1},
		{"wrong key", "x", `{"model":"e","input":"pick"}`, 401, 0},
		{"wrong model", "k", `{"model":"m","input":"pick"}`, 404, 0},
		{"empty string", "k", `{"model":"e","input":""}`, 400, 0},
		{"empty item", "k", `{"model":"e","input":["a",""]}`, 400, 0},
		{"empty list", "k", `{"model":"e","input":[]}`, 400, 0},
		{"tokens", "k", `{"model":"e","input":[[1,2]]}`, 400, 0},
		{"bad format", "k", `{"model":"e","input":"a","encoding_format":"int8"}`, 400, 0},
		{"not JSON", "k", `{`, 400, 0},
	}
	srv := New(t, "k", "m", func(Request) Reply { return Reply{Content: "{}"} })
	srv.Embeddings("e", func(text string) []float64 { return []float64{float64(len(text)), 1} })
	base := strings.TrimSuffix(srv.URL, "/v1")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, base+embeddingsPath, strings.NewReader(c.body))
			req.Header.Set("Authorization", "Bearer "+c.key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.status)
			}
			var got struct {
				Data []struct {
					Index     int             `json:"index"`
					Embedding json.RawMessage `json:"embedding"`
				} `json:"data"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
				t.Fatal(err)
			}
			if len(got.Data) != c.vectors {
				t.Fatalf("%d vectors, want %d", len(got.Data), c.vectors)
			}
		})
	}
	if got := len(srv.Refused()); got != 8 {
		t.Fatalf("%d refusals recorded, want 8", got)
	}
	if r := srv.EmbedRequests(); len(r) != 3 || r[1].EncodingFormat != "float" || strings.Join(r[1].Input, ",") != "pick,place" {
		t.Fatalf("requests %+v", r)
	}
}
