package vlmtest

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/jpeg"
	"net/http"
	"strings"
	"testing"
)

// TestChecks: requests the real API would refuse are refused with its
// status, and recorded in Refused; a good one is answered.
func TestChecks(t *testing.T) {
	var j bytes.Buffer
	if err := jpeg.Encode(&j, image.NewGray(image.Rect(0, 0, 8, 8)), nil); err != nil {
		t.Fatal(err)
	}
	img := `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,` + base64.StdEncoding.EncodeToString(j.Bytes()) + `"}}`
	format := `"response_format":{"type":"json_schema","json_schema":{"name":"x","strict":true,"schema":{"type":"object","additionalProperties":false}}}`
	body := func(model, parts, format string) string {
		return `{"model":"` + model + `","messages":[{"role":"system","content":"s"},{"role":"user","content":[` + parts + `]}]` + format + `}`
	}
	cases := []struct {
		name, key, path, body string
		status                int
	}{
		{"good", "k", "/v1/chat/completions", body("m", `{"type":"text","text":"t"},`+img, ","+format), 200},
		{"wrong key", "x", "/v1/chat/completions", body("m", img, ","+format), 401},
		{"wrong path", "k", "/v1/completions", body("m", img, ","+format), 404},
		{"wrong model", "k", "/v1/chat/completions", body("n", img, ","+format), 404},
		{"no schema", "k", "/v1/chat/completions", body("m", img, ""), 400},
		{"not a JPEG", "k", "/v1/chat/completions", body("m", `{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,aGVsbG8="}}`, ","+format), 400},
		{"a PNG URL", "k", "/v1/chat/completions", body("m", `{"type":"image_url","image_url":{"url":"data:image/png;base64,aGVsbG8="}}`, ","+format), 400},
		{"no parts", "k", "/v1/chat/completions", body("m", "", ","+format), 400},
		{"not JSON", "k", "/v1/chat/completions", "{", 400},
	}
	srv := New(t, "k", "m", func(Request) Reply { return Reply{Content: "{}"} })
	base := strings.TrimSuffix(srv.URL, "/v1")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, base+c.path, strings.NewReader(c.body))
			req.Header.Set("Authorization", "Bearer "+c.key)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, c.status)
			}
		})
	}
	if got := len(srv.Refused()); got != len(cases)-1 {
		t.Fatalf("%d refusals recorded, want %d", got, len(cases)-1)
	}
	if r := srv.Requests(); len(r) != 1 || len(r[0].Images()) != 1 || r[0].Text() != "t\n" {
		t.Fatalf("requests %+v", r)
	}
}
