package remote

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
)

// Reads are the reads a command's [DIR] [EPISODE] arguments name: a
// store's list (Load nil) or one episode (List nil).
type Reads struct {
	List func() ([]episode.Manifest, error)
	// Load also returns the store the episode is in (rooted at its
	// episodes/), where its annotations are read.
	Load func() (*episode.Episode, blob.Blobs, error)
}

// Named sorts out [DIR] [EPISODE] (edged inspect's): a single argument
// is an episode directory, a store directory, or an episode id in the
// store of dataDir (the default data_dir); none lists dataDir's store.
// A store in an object store (an s3:// URL: a data_dir, its episodes/
// or one episode) is read where it is (episode.ListBlobs, LoadBlobs),
// never copied; a directory by List and Load.
func Named(ctx context.Context, dataDir string, args []string) (Reads, error) {
	urls := 0
	for _, a := range args {
		if s3.IsURL(a) {
			urls++
		}
	}
	if urls == 0 {
		dir, ref := localArgs(dataDir, args)
		if ref == "" {
			return Reads{List: func() ([]episode.Manifest, error) { return episode.List(dir) }}, nil
		}
		return Reads{Load: func() (*episode.Episode, blob.Blobs, error) {
			e, err := episode.Load(dir, ref)
			if err != nil {
				return nil, nil, err
			}
			return e, blob.Dir{Root: filepath.Dir(e.Dir)}, nil // e.Dir's store, whatever ref named
		}}, nil
	}
	named := args[len(args)-1] // EPISODE's URL, else DIR's
	if len(args) == 2 && !s3.IsURL(named) {
		named = args[0]
	}
	store, id, err := Open(ctx, named)
	if err != nil {
		return Reads{}, err
	}
	switch {
	case len(args) == 2 && named == args[0]: // s3://DIR EPISODE
		id = args[1]
	case len(args) == 2 && id == "":
		return Reads{}, fmt.Errorf("%s holds no episode (give an episode's URL or an id)", named)
	case id == "":
		return Reads{List: func() ([]episode.Manifest, error) { return episode.ListBlobs(store) }}, nil
	}
	return Reads{Load: func() (*episode.Episode, blob.Blobs, error) {
		e, err := episode.LoadBlobs(store, id)
		return e, store, err
	}}, nil
}

// localArgs is Named's reading of arguments that name no URL: the
// store directory and the episode (a directory, an id or "": the list).
func localArgs(dataDir string, args []string) (dir, ref string) {
	switch len(args) {
	case 2:
		return episode.StoreDir(args[0]), args[1]
	case 1:
		if _, err := os.Stat(filepath.Join(args[0], episode.ManifestFile)); err == nil {
			return "", args[0]
		}
		if st, err := os.Stat(args[0]); err == nil && st.IsDir() {
			return episode.StoreDir(args[0]), ""
		}
		return episode.StoreDir(dataDir), args[0]
	}
	return episode.StoreDir(dataDir), ""
}
