package daemon

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
)

// Fetching from an object store: f.From is a sink's store (s3://BUCKET
// [/PREFIX], its --out), whose manifests say which clips exist and
// where (view.Clips), or one clip's object URL (a manifest's where).
// Each clip streams with ranged GETs (s3.Target.ReadFrom) into the same
// NAME.part as from a robot; its size and sha256 are checked against
// the sink's manifest entry when there is one.

// IsClipURL reports whether raw is one clip's object URL
// (s3://BUCKET/.../NAME.mcap, a manifest's where), which needs no
// selection.
func IsClipURL(raw string) bool {
	_, prefix, err := s3.ParseURL(raw)
	return err == nil && episode.IsClipName(path.Base(prefix))
}

// fetchFromStore is FetchClips from an s3:// URL.
func fetchFromStore(ctx context.Context, f Fetch) ([]StoredClip, error) {
	o := s3.Options{Getenv: f.Getenv}
	var list []StoredClip
	var sums map[string]string
	var err error
	if IsClipURL(f.From) {
		list, sums, err = objectClip(ctx, f.From, o)
		f.All = len(f.Names) == 0 && !f.Latest // the clip it names
	} else {
		list, sums, err = storeClips(ctx, f, o)
	}
	if err != nil {
		return nil, fmt.Errorf("clip fetch: %w", err)
	}
	if f.SHA256 == nil {
		f.SHA256 = sums
	}
	sel, err := selectClips(list, f)
	if err != nil {
		return nil, err
	}
	var here, robot []StoredClip
	for _, c := range sel {
		if c.Where == episode.ClipOnRobot {
			robot = append(robot, c)
		} else {
			here = append(here, c)
		}
	}
	if len(robot) > 0 && (!f.All || len(here) == 0) {
		return nil, onRobot(robot)
	}
	if err := sizeClips(ctx, here, o); err != nil {
		return nil, fmt.Errorf("clip fetch: %w", err)
	}
	if err := fetchAll(ctx, f, storeSource(o), here); err != nil {
		return here, err
	}
	if len(robot) > 0 {
		return here, onRobot(robot)
	}
	return here, nil
}

func onRobot(cs []StoredClip) error {
	var names []string
	for _, c := range cs {
		names = append(names, c.Name)
	}
	return fmt.Errorf("clip fetch: %s not uploaded (on the robot): fetch from the robot, edged clip fetch --from http://ROBOT:PORT",
		strings.Join(names, ", "))
}

// storeClips lists the clips of a sink's store (of f.Episode, or of
// every episode whose manifest lists clips), each with its object's URL
// in Where (or episode.ClipOnRobot), and their sha256 by name.
func storeClips(ctx context.Context, f Fetch, o s3.Options) ([]StoredClip, map[string]string, error) {
	st, err := s3.Open(ctx, f.From, o)
	if err != nil {
		return nil, nil, err
	}
	eps := blob.Sub(st, episode.EpisodesDir)
	ids := []string{f.Episode}
	if f.Episode == "" {
		ms, err := episode.ListBlobs(eps)
		if err != nil {
			return nil, nil, err
		}
		ids = ids[:0]
		for _, m := range ms {
			if len(m.Clips) > 0 {
				ids = append(ids, m.ID)
			}
		}
	}
	var list []StoredClip
	sums := map[string]string{}
	for _, id := range ids {
		e, err := episode.LoadBlobs(eps, id)
		if err != nil {
			return nil, nil, fmt.Errorf("%w (is %s a sink's store, its --out?)", err, f.From)
		}
		for _, p := range view.Clips(e) {
			where := p.Where
			if where == view.WhereHere {
				where = strings.TrimSuffix(f.From, "/") + "/" + episode.ClipKey(e.Manifest.ID, p.Name)
			}
			list = append(list, StoredClip{Episode: e.Manifest.ID, Name: p.Name, Bytes: p.Bytes, Kind: p.Kind, At: p.At, Where: where})
			sums[p.Name] = p.SHA256
		}
	}
	return list, sums, nil
}

// objectClip is the one clip an object URL names
// (.../episodes/ID/clips/NAME), with its entry in the episode's
// manifest beside it when there is one (a sink's store).
func objectClip(ctx context.Context, raw string, o s3.Options) ([]StoredClip, map[string]string, error) {
	tg, key, err := s3.ObjectOf(raw, o)
	if err != nil {
		return nil, nil, err
	}
	name := path.Base(key)
	epKey := path.Dir(path.Dir(key))
	at, kind, _ := episode.ParseClipName(name)
	c := StoredClip{Episode: path.Base(epKey), Name: name, Kind: kind, At: at, Where: raw}
	m, err := readManifest(ctx, tg, epKey+"/"+episode.ManifestFile)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return []StoredClip{c}, nil, nil // no sink's manifest: the size alone is checked
	case err != nil:
		return nil, nil, err
	}
	for _, e := range m.Clips {
		if e.Name == name {
			c.Bytes = e.Bytes
			return []StoredClip{c}, map[string]string{name: e.SHA256}, nil
		}
	}
	return []StoredClip{c}, nil, nil
}

// readManifest reads and decodes the manifest at key (capped).
func readManifest(ctx context.Context, tg *s3.Target, key string) (episode.Manifest, error) {
	r, err := tg.ReadFrom(ctx, key, 0)
	if err != nil {
		return episode.Manifest{}, err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, episode.MaxManifestBytes+1))
	if err != nil {
		return episode.Manifest{}, err
	}
	if len(b) > episode.MaxManifestBytes {
		return episode.Manifest{}, fmt.Errorf("%s: larger than %d bytes; not read", key, episode.MaxManifestBytes)
	}
	return episode.DecodeManifest(b)
}

// sizeClips sets each clip's size from its object (a HEAD), refusing an
// object whose size is not the one the manifest lists.
func sizeClips(ctx context.Context, cs []StoredClip, o s3.Options) error {
	for i, c := range cs {
		tg, key, err := s3.ObjectOf(c.Where, o)
		if err != nil {
			return err
		}
		n, err := tg.Size(ctx, key)
		if err != nil {
			return err
		}
		if c.Bytes > 0 && n != c.Bytes {
			return fmt.Errorf("%s has %d bytes, the sink's manifest lists %d: not the clip announced; not fetched", c.Where, n, c.Bytes)
		}
		cs[i].Bytes = n
	}
	return nil
}

// storeSource streams a clip from its object (StoredClip.Where), from
// any offset (a ranged GET).
func storeSource(o s3.Options) clipSource {
	return func(ctx context.Context, c StoredClip, off int64) (io.ReadCloser, int64, error) {
		tg, key, err := s3.ObjectOf(c.Where, o)
		if err != nil {
			return nil, 0, err
		}
		body, err := tg.ReadFrom(ctx, key, off)
		return body, off, err
	}
}
