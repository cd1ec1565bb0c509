package receive

import (
	"errors"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
)

// tornOnce is a shared store that shows the next n manifest reads cut
// short, as an S3 gateway over a directory can while another sink
// rewrites the manifest.
type tornOnce struct {
	blob.Blobs
	n int
}

func (b *tornOnce) Get(name string, max int64) ([]byte, string, error) {
	data, ver, err := b.Blobs.Get(name, max)
	if err == nil && b.n > 0 && strings.HasSuffix(name, "/"+episode.ManifestFile) {
		b.n--
		return data[:len(data)/2], ver + "-torn", nil
	}
	return data, ver, err
}

// TestSharedReceiverRereadsATornManifest: a shared receiver reads a
// manifest that does not parse again before refusing the episode (a
// sink on versitygw refused one for good: TestSharedSinksOnS3); an
// unshared one, the only writer, refuses at once, and a manifest that
// stays unreadable is refused by both.
func TestSharedReceiverRereadsATornManifest(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shared bool
		torn   int
		ok     bool
	}{
		{"shared, torn twice", true, 2, true},
		{"shared, never readable", true, 100, false},
		{"unshared, torn once", false, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			first, err := Open(dir, Options{Shared: tc.shared})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := first.Segment("arm-01", rid, rseg(0, "A")); err != nil {
				t.Fatal(err)
			}
			first.Close()
			blobs := &tornOnce{Blobs: blob.Dir{Root: dir}, n: tc.torn}
			r, err := Open(dir, Options{Shared: tc.shared, Blobs: blobs})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			_, err = r.Segment("arm-01", rid, rseg(1, "B"))
			if tc.ok && err != nil {
				t.Fatalf("a manifest torn %d times: %v, want it read again and the segment taken", tc.torn, err)
			}
			if !tc.ok && !errors.Is(err, ErrRefused) {
				t.Fatalf("got %v, want ErrRefused", err)
			}
		})
	}
}
