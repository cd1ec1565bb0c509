package blob

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// Blobs is where a store lives: named byte strings under one root, read
// and written whole, with versions for conditional writes. A directory
// (Dir) is one; an object store (blob/s3) is another. Names are slash-separated and relative to the root
// ("EPISODE/manifest.json"). Several receivers (sinks) may share one
// Blobs: every change they make to a shared file (a manifest, the
// segments record file) is a read, then a write conditional on the
// version read, so no sink overwrites what another wrote meanwhile.
type Blobs interface {
	// Get returns name's content (at most max bytes, else an error) and
	// its version; an error wrapping fs.ErrNotExist when it is absent.
	Get(name string, max int64) (b []byte, version string, err error)
	// Put writes name whole and atomically, under cond, and returns its
	// new version. A failed condition is an error wrapping
	// ErrPrecondition.
	Put(name string, b []byte, cond Cond) (version string, err error)
	// List returns every blob whose name starts with prefix (recursive).
	List(prefix string) ([]Info, error)
	// Delete removes name; absent is no error.
	Delete(name string) error
	// String says where the blobs live, for messages.
	String() string
}

// Cond is the condition of a Put: none (the zero Cond), the blob is
// absent (IfAbsent), or the blob is at version IfVersion.
type Cond struct {
	IfAbsent  bool
	IfVersion string
}

// Info is one listed blob.
type Info struct {
	Name string
	Size int64
}

// ErrPrecondition: a conditional Put found the blob absent, present or
// at another version than asked; re-read it and try again.
var ErrPrecondition = errors.New("blob: the stored version changed (another writer); re-read and retry")

// ErrTooLarge: a blob is larger than the reader's cap; it was not read.
var ErrTooLarge = errors.New("blob: larger than the cap")

// ErrBadName: a blob name that could leave the root (absolute, "..",
// not clean, a NUL); nothing was read or written.
var ErrBadName = errors.New("blob: name refused")

// CheckName refuses names that could leave the root.
func CheckName(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || path.Clean(name) != name || name == ".." ||
		strings.HasPrefix(name, "../") || strings.ContainsRune(name, 0) {
		return fmt.Errorf("%w: blob name %.140q", ErrBadName, name)
	}
	return nil
}

// Sub is the part of b under prefix/ (a store's episodes/ beside
// the sink's own files).
func Sub(b Blobs, prefix string) Blobs { return sub{b, strings.TrimSuffix(prefix, "/") + "/"} }

type sub struct {
	b      Blobs
	prefix string
}

func (s sub) String() string { return s.b.String() + "/" + strings.TrimSuffix(s.prefix, "/") }
func (s sub) Get(name string, max int64) ([]byte, string, error) {
	return s.b.Get(s.prefix+name, max)
}
func (s sub) Put(name string, b []byte, c Cond) (string, error) { return s.b.Put(s.prefix+name, b, c) }
func (s sub) Delete(name string) error                          { return s.b.Delete(s.prefix + name) }
func (s sub) List(prefix string) ([]Info, error) {
	l, err := s.b.List(s.prefix + prefix)
	for i := range l {
		l[i].Name = strings.TrimPrefix(l[i].Name, s.prefix)
	}
	return l, err
}
