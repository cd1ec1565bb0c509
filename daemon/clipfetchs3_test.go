package daemon

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/s3test"
)

// s3Clips is a sink's store in versitygw (s3://edged/fleet) with one
// episode whose manifest lists three clips: uploaded (its object there,
// the right sha256), still on the robot, and uploaded with a sha256 its
// object does not have.
type s3Clips struct {
	srv                     *s3test.Server
	store, id               string
	uploaded, robot, forged string
	body                    []byte
}

func newS3Clips(t *testing.T) *s3Clips {
	t.Helper()
	srv := s3test.Start(t)
	c := &s3Clips{srv: srv, store: srv.URL("fleet"), id: episode.NewID("arm-01", clipT0, "")}
	st, err := s3.Open(context.Background(), c.store, s3.Options{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	c.body = make([]byte, 3<<20+7)
	for i := range c.body {
		c.body[i] = byte(rng.Uint32())
	}
	sum := fmt.Sprintf("%x", sha256.Sum256(c.body))
	m := episode.Manifest{Format: episode.ManifestFormat, ID: c.id, Robot: "arm-01", Start: clipT0}
	for i, kind := range []string{"state", "request", "outcome"} {
		name := episode.ClipName(clipT0.Add(time.Duration(i+1)*time.Second), kind)
		e := episode.ClipEntry{Name: name, Kind: kind, At: clipT0.Add(time.Duration(i+1) * time.Second), Bytes: int64(len(c.body)), SHA256: sum,
			Where: c.store + "/" + episode.ClipKey(c.id, name)}
		switch kind {
		case "state":
			c.uploaded = name
		case "request":
			c.robot, e.Where = name, episode.ClipOnRobot
		case "outcome":
			c.forged, e.SHA256 = name, strings.Repeat("0", 64)
		}
		if e.Where != episode.ClipOnRobot {
			if _, err := st.Put(episode.ClipKey(c.id, name), c.body, blob.Cond{}); err != nil {
				t.Fatal(err)
			}
		}
		m.Clips = append(m.Clips, e)
	}
	b, err := episode.EncodeManifest(m)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Put(episode.EpisodesDir+"/"+c.id+"/"+episode.ManifestFile, b, blob.Cond{}); err != nil {
		t.Fatal(err)
	}
	return c
}

func (c *s3Clips) url(name string) string { return c.store + "/" + episode.ClipKey(c.id, name) }

// TestClipFetchFromStore: edged clip fetch from a sink's store in a real
// S3 server (by its store URL and --episode, or a clip's object URL)
// writes each clip byte-identical, resumes a partial NAME.part with a
// ranged GET, refuses a body whose sha256 is not the manifest's, and
// says which clips are still on the robot.
func TestClipFetchFromStore(t *testing.T) {
	c := newS3Clips(t)
	for _, tc := range []struct {
		name    string
		f       Fetch
		part    []byte // a NAME.part left by an earlier run
		want    string // the clip fetched; "" none
		wantErr string
	}{
		{name: "by name from the store", f: Fetch{From: c.store, Episode: c.id, Names: []string{c.uploaded}}, want: c.uploaded},
		{name: "the latest of the store", f: Fetch{From: c.store + "/", Latest: true}, wantErr: "sha256"},
		{name: "an object URL, resumed", f: Fetch{From: c.url(c.uploaded)}, part: c.body[:1<<20], want: c.uploaded},
		{name: "a sha256 mismatch", f: Fetch{From: c.store, Names: []string{c.forged}}, wantErr: "sha256"},
		{name: "an object URL, sha256 mismatch", f: Fetch{From: c.url(c.forged)}, wantErr: "sha256"},
		{name: "on the robot", f: Fetch{From: c.store, Names: []string{c.robot}}, wantErr: "on the robot"},
		{name: "no such clip", f: Fetch{From: c.url(episode.ClipName(clipT0, "goal"))}, wantErr: "not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.f.Dir, tc.f.Getenv = t.TempDir(), c.srv.Getenv
			if tc.part != nil {
				name := filepath.Base(tc.f.From)
				if err := os.WriteFile(filepath.Join(tc.f.Dir, name+".part"), tc.part, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := FetchClips(context.Background(), tc.f)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tc.wantErr)
				}
				if left, _ := filepath.Glob(filepath.Join(tc.f.Dir, "*")); len(left) != 0 {
					t.Errorf("a refused fetch left %v", left)
				}
				return
			}
			if err != nil || len(got) != 1 || got[0].Name != tc.want {
				t.Fatalf("fetched %+v, %v; want %s", got, err, tc.want)
			}
			checkFetched(t, tc.f.Dir, tc.want, c.body)
		})
	}
}

// TestClipFetchFromStoreResumes: a download cut mid-body (within a run,
// and across runs) resumes with a ranged GET from where the .part ends
// and ends byte-identical.
func TestClipFetchFromStoreResumes(t *testing.T) {
	c := newS3Clips(t)
	ctx := context.Background()
	o := s3.Options{Getenv: c.srv.Getenv}
	list, _, err := objectClip(ctx, c.url(c.uploaded), o)
	if err != nil {
		t.Fatal(err)
	}
	sel := []StoredClip{list[0]}
	if err := sizeClips(ctx, sel, o); err != nil {
		t.Fatal(err)
	}
	const cut = 1<<20 + 3
	for _, attempts := range []int{5, 1} {
		t.Run(fmt.Sprintf("attempts=%d", attempts), func(t *testing.T) {
			src := &cuttingSource{src: storeSource(o), cut: cut}
			f := Fetch{Dir: t.TempDir(), Attempts: attempts}
			err := fetchAll(ctx, f, src.open, sel)
			if attempts == 1 { // the run ends at the cut; the next one resumes
				if err == nil {
					t.Fatal("a download cut with no attempt left succeeded")
				}
				if st, err := os.Stat(filepath.Join(f.Dir, c.uploaded+".part")); err != nil || st.Size() != cut {
					t.Fatalf("the .part after the cut: %v, %v; want %d bytes", st, err, cut)
				}
				err = fetchAll(ctx, f, src.open, sel)
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := []int64{0, cut}; !slices.Equal(src.offsets(), want) {
				t.Errorf("requested offsets %v, want %v (the resume a ranged GET)", src.offsets(), want)
			}
			checkFetched(t, f.Dir, c.uploaded, c.body)
		})
	}
}

// cuttingSource fails its first body after cut bytes and records the
// offset of every request.
type cuttingSource struct {
	src  clipSource
	cut  int64
	mu   sync.Mutex
	offs []int64
}

var errCut = errors.New("connection cut by the test")

func (s *cuttingSource) open(ctx context.Context, c StoredClip, off int64) (io.ReadCloser, int64, error) {
	s.mu.Lock()
	first := len(s.offs) == 0
	s.offs = append(s.offs, off)
	s.mu.Unlock()
	body, from, err := s.src(ctx, c, off)
	if err != nil || !first {
		return body, from, err
	}
	return struct {
		io.Reader
		io.Closer
	}{io.MultiReader(io.LimitReader(body, s.cut), errReader{}), body}, from, nil
}

func (s *cuttingSource) offsets() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int64(nil), s.offs...)
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errCut }

// checkFetched: DIR/NAME holds want, and no .part is left.
func checkFetched(t *testing.T, dir, name string, want []byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil || !bytes.Equal(b, want) {
		t.Fatalf("%s: %d bytes, %v; want the object's %d", name, len(b), err, len(want))
	}
	if _, err := os.Stat(filepath.Join(dir, name+".part")); err == nil {
		t.Errorf("%s.part left", name)
	}
}
