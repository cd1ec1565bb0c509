package episode

import (
	"bytes"
	"errors"

	"github.com/edged-robotics/edged/blob"
)

// sameBlob reports whether name holds exactly b (reading at most len(b)+1
// bytes of it): the idempotence test of a write-once file.
func sameBlob(bl blob.Blobs, name string, b []byte) (bool, error) {
	old, _, err := bl.Get(name, int64(len(b))+1)
	if err != nil {
		if errors.Is(err, blob.ErrTooLarge) {
			return false, nil
		}
		return false, err
	}
	return bytes.Equal(old, b), nil
}
