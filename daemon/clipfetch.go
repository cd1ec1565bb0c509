package daemon

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fsutil"
)

// Fetch is what `edged clip fetch` asks of a running daemon's
// GET /clips and GET /clips/EPISODE/NAME.
type Fetch struct {
	From string // the daemon's http.listen: host:port or URL; or an s3:// URL
	// Getenv reads the object store's settings (default os.Getenv).
	Getenv  func(string) string
	Names   []string // clips by name; or Latest, or All
	Latest  bool
	All     bool
	Episode string // only this episode's clips
	Dir     string // where the clips go (DIR/NAME)
	// SHA256 of a clip by name, checked when known (a receiver's
	// manifest lists it); GET /clips does not.
	SHA256 map[string]string
	// Attempts bounds the requests per clip, each resuming where the
	// last stopped (default 5).
	Attempts int
	Client   *http.Client
}

// maxClipList caps GET /clips' answer.
const maxClipList = 4 << 20

// FetchClips downloads the clips f selects into f.Dir: each into
// NAME.part, resumed with a Range request where an earlier attempt (or
// an earlier run) stopped, its size (and sha256 when known) checked,
// fsynced and renamed to NAME. A clip already in f.Dir is not fetched
// again. It returns the clips fetched. f.From is a daemon's http.listen,
// or an object store's s3:// URL (fetchFromStore).
func FetchClips(ctx context.Context, f Fetch) ([]StoredClip, error) {
	if f.Attempts <= 0 {
		f.Attempts = 5
	}
	if s3.IsURL(f.From) {
		return fetchFromStore(ctx, f)
	}
	base := baseURL(f.From)
	if f.Client == nil {
		f.Client = http.DefaultClient
	}
	list, err := listClips(ctx, f.Client, base)
	if err != nil {
		return nil, fmt.Errorf("clip fetch: %w (is edged run listening on %s? see http.listen)", err, f.From)
	}
	sel, err := selectClips(list, f)
	if err != nil {
		return nil, err
	}
	return sel, fetchAll(ctx, f, httpSource(f.Client, base), sel)
}

// fetchAll downloads sel from src into f.Dir (fetchOne each).
func fetchAll(ctx context.Context, f Fetch, src clipSource, sel []StoredClip) error {
	if err := os.MkdirAll(f.Dir, 0o755); err != nil {
		return fmt.Errorf("clip fetch: %w (check -o)", err)
	}
	for _, c := range sel {
		if err := fetchOne(ctx, f, src, c); err != nil {
			return err
		}
	}
	return nil
}

// clipSource opens clip c's bytes from offset off to its end; from is
// the offset the body starts at (off, or 0 for a source that sends the
// whole clip again).
type clipSource func(ctx context.Context, c StoredClip, off int64) (body io.ReadCloser, from int64, err error)

// httpSource reads clips from a daemon's GET /clips/EPISODE/NAME.
func httpSource(client *http.Client, base string) clipSource {
	return func(ctx context.Context, c StoredClip, off int64) (io.ReadCloser, int64, error) {
		u := base + "/clips/" + url.PathEscape(c.Episode) + "/" + url.PathEscape(c.Name)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err != nil {
			return nil, 0, err
		}
		if off > 0 {
			req.Header.Set("Range", fmt.Sprintf("bytes=%d-", off))
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, 0, err
		}
		switch {
		case resp.StatusCode == http.StatusPartialContent && off > 0:
			return resp.Body, off, nil
		case resp.StatusCode == http.StatusOK:
			return resp.Body, 0, nil
		}
		resp.Body.Close()
		return nil, 0, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
}

func baseURL(addr string) string {
	if u, err := url.Parse(addr); err == nil && u.Scheme != "" {
		return strings.TrimSuffix(addr, "/")
	}
	return "http://" + addr
}

// listClips reads GET /clips, refusing entries that name no clip of a
// well-formed episode (a path, a traversal): they would be written
// outside the output directory.
func listClips(ctx context.Context, c *http.Client, base string) ([]StoredClip, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/clips", nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /clips: %s", resp.Status)
	}
	var list []StoredClip
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxClipList)).Decode(&list); err != nil {
		return nil, fmt.Errorf("GET /clips: %w", err)
	}
	for _, s := range list {
		if _, ok := episode.RobotOf(s.Episode); !ok || !episode.IsClipName(s.Name) || s.Bytes < 0 {
			return nil, fmt.Errorf("GET /clips lists %.140q of episode %.140q: not a clip; refused", s.Name, s.Episode)
		}
	}
	return list, nil
}

// selectClips picks the clips f asks for from list (by trigger time).
func selectClips(list []StoredClip, f Fetch) ([]StoredClip, error) {
	var in []StoredClip
	for _, c := range list {
		if f.Episode == "" || c.Episode == f.Episode {
			in = append(in, c)
		}
	}
	switch {
	case f.All:
		return in, nil
	case f.Latest:
		if len(in) == 0 {
			return nil, errors.New("clip fetch: " + f.From + " holds no clip" + episodeNote(f.Episode))
		}
		return in[len(in)-1:], nil
	}
	var out []StoredClip
	for _, name := range f.Names {
		i := slices.IndexFunc(in, func(c StoredClip) bool { return c.Name == name })
		if i < 0 {
			return nil, fmt.Errorf("clip fetch: no clip %s%s in %s (edged inspect on the sink says where each is)", name, episodeNote(f.Episode), f.From)
		}
		out = append(out, in[i])
	}
	if len(out) == 0 {
		return nil, errors.New("clip fetch: name clips, or --latest or --all")
	}
	return out, nil
}

func episodeNote(id string) string {
	if id == "" {
		return ""
	}
	return " of episode " + id
}

// fetchOne downloads c into f.Dir (see FetchClips).
func fetchOne(ctx context.Context, f Fetch, src clipSource, c StoredClip) error {
	final := filepath.Join(f.Dir, c.Name)
	if st, err := os.Stat(final); err == nil && st.Size() == c.Bytes {
		return nil // fetched before
	}
	part := final + ".part"
	var err error
	for range f.Attempts {
		if err = resume(ctx, src, c, part); err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("clip fetch: %s: %w (run it again: it resumes from %s)", c.Name, err, part)
	}
	if err := checkPart(part, c, f.SHA256[c.Name]); err != nil {
		_ = os.Remove(part)
		return fmt.Errorf("clip fetch: %s: %w; removed, fetch it again", c.Name, err)
	}
	if err := os.Rename(part, final); err != nil {
		return fmt.Errorf("clip fetch: %w", err)
	}
	return fsutil.SyncDir(f.Dir)
}

// resume appends to part what it lacks of c (a Range request from its
// size; a server that answers the whole file starts it over), then
// fsyncs it. A part longer than the clip starts over.
func resume(ctx context.Context, src clipSource, c StoredClip, part string) error {
	out, err := os.OpenFile(part, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer out.Close()
	have, err := out.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if have > c.Bytes {
		if have, err = 0, out.Truncate(0); err != nil {
			return err
		}
	}
	if have < c.Bytes {
		if err := download(ctx, src, c, out, have); err != nil {
			return err
		}
	}
	return out.Sync()
}

// download writes bytes [have, c.Bytes) of clip c from src to out (at
// have; from 0 when src sends the whole clip again).
func download(ctx context.Context, src clipSource, c StoredClip, out *os.File, have int64) error {
	body, from, err := src(ctx, c, have)
	if err != nil {
		return err
	}
	defer body.Close()
	if from != have {
		if err := out.Truncate(0); err != nil {
			return err
		}
		if _, err := out.Seek(0, io.SeekStart); err != nil {
			return err
		}
	}
	n, err := io.Copy(out, io.LimitReader(body, c.Bytes-from))
	if err == nil && from+n < c.Bytes {
		err = fmt.Errorf("connection ended after %d of %d bytes", from+n, c.Bytes)
	}
	return err
}

// checkPart checks a downloaded clip's size and, when known, sha256.
func checkPart(part string, c StoredClip, sum string) error {
	in, err := os.Open(part)
	if err != nil {
		return err
	}
	defer in.Close()
	h := sha256.New()
	n, err := io.Copy(h, in)
	switch {
	case err != nil:
		return err
	case n != c.Bytes:
		return fmt.Errorf("%d bytes, %d listed", n, c.Bytes)
	case sum != "" && hex.EncodeToString(h.Sum(nil)) != sum:
		return fmt.Errorf("sha256 %x, the manifest says %s", h.Sum(nil), sum)
	}
	return nil
}
