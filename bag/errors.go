package bag

import (
	"errors"
	"fmt"
)

// ErrCorrupt is matched (errors.Is) by every error about the content of
// a bag file: a bad record, an absurd length, a broken index or chunk.
var ErrCorrupt = errors.New("corrupt bag")

// ErrUnsupported is matched by errors about bags this package does not
// read: another format version, an unknown chunk compression.
var ErrUnsupported = errors.New("unsupported bag")

// CorruptError says where a bag file is bad. Offset is the byte offset
// in the file of the record (or field) at fault; for a record inside a
// chunk, Chunk is the file offset of the chunk record and InChunk the
// offset within its uncompressed data (else Chunk is -1).
type CorruptError struct {
	Path    string
	Offset  int64
	Chunk   int64
	InChunk int64
	Err     error
}

func (e *CorruptError) Error() string {
	where := fmt.Sprintf("offset %d", e.Offset)
	if e.Chunk >= 0 {
		where = fmt.Sprintf("chunk at offset %d, +%d in its uncompressed data", e.Chunk, e.InChunk)
	}
	return fmt.Sprintf("bag %s: %s: %v (the file is damaged; `rosbag reindex` or `rosbag fix` may recover it)", e.Path, where, e.Err)
}

func (e *CorruptError) Unwrap() []error { return []error{ErrCorrupt, e.Err} }

func (r *Reader) corrupt(off int64, format string, args ...any) error {
	return &CorruptError{Path: r.path, Offset: off, Chunk: -1, Err: fmt.Errorf(format, args...)}
}

func (r *Reader) corruptIn(chunkPos, inChunk int64, err error) error {
	return &CorruptError{Path: r.path, Offset: chunkPos, Chunk: chunkPos, InChunk: inChunk, Err: err}
}
