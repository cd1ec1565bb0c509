package mqttconn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadPasswordFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, path, want, err string
	}{
		{"plain", write("plain", "s3cret"), "s3cret", ""},
		{"line end", write("lf", "s3cret\n"), "s3cret", ""},
		{"windows line end", write("crlf", "s3cret\r\n"), "s3cret", ""},
		{"inner spaces kept", write("spaces", " s3 cret \n"), " s3 cret ", ""},
		{"missing", filepath.Join(dir, "nope"), "", "--password-file: open "},
		{"too large", write("large", strings.Repeat("x", MaxPasswordFileBytes+1)), "", "--password-file: " + dir},
		{"at the cap", write("cap", strings.Repeat("x", MaxPasswordFileBytes)), strings.Repeat("x", MaxPasswordFileBytes), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadPasswordFile("--password-file", tc.path)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
