package upload

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/edged-robotics/edged/internal/fsutil"
)

// sidecarExt ends a clip's sidecar: .NAME.upload beside NAME, a dot
// name no clip listing (episode.IsClipName) takes for a clip.
const sidecarExt = ".upload"

// maxSidecarBytes caps a sidecar read: 10000 parts (S3's most) of about
// 80 bytes each.
const maxSidecarBytes = 2 << 20

// sidecar is the state of one clip's upload.
type sidecar struct {
	Key      string `json:"key"`       // the object's key
	UploadID string `json:"upload_id"` // the multipart upload; "" none yet
	Size     int64  `json:"size"`      // the clip's size when the upload began
	PartSize int64  `json:"part_size"`
	Parts    []part `json:"parts"` // confirmed parts, in order
	Done     bool   `json:"done"`  // uploaded and confirmed (clips.keep_uploaded)
}

// part is one confirmed part.
type part struct {
	N    int    `json:"n"`
	ETag string `json:"etag"`
	Size int64  `json:"size"`
}

func sidecarPath(clip string) string {
	return filepath.Join(filepath.Dir(clip), "."+filepath.Base(clip)+sidecarExt)
}

// loadSidecar reads clip's sidecar; a missing one is (nil, nil), a
// corrupt one an error (the upload then starts anew).
func loadSidecar(clip string) (*sidecar, error) {
	b, err := fsutil.ReadFileCapped(sidecarPath(clip), maxSidecarBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var sc sidecar
	if err := json.Unmarshal(b, &sc); err != nil {
		return nil, fmt.Errorf("upload: %s: %w", sidecarPath(clip), err)
	}
	return &sc, nil
}

// save writes sc for clip durably (write, fsync, rename, fsync dir).
func (sc *sidecar) save(clip string) error {
	b, err := json.Marshal(sc)
	if err != nil {
		return err
	}
	if err := fsutil.WriteFileAtomic(sidecarPath(clip), b); err != nil {
		return fmt.Errorf("upload: saving the upload's state: %w", err)
	}
	return nil
}

func removeSidecar(clip string) error {
	if err := os.Remove(sidecarPath(clip)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// confirmed is the bytes of the confirmed parts.
func (sc *sidecar) confirmed() int64 {
	var n int64
	for _, p := range sc.Parts {
		n += p.Size
	}
	return n
}
