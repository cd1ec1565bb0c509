package episode

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sync/errgroup"

	"github.com/edged-robotics/edged/internal/fsutil"
)

// Blobs is where a receiver writes a store: named byte strings under one
// root, read and written whole, with versions for conditional writes. A
// directory (DirBlobs) is today's store; an object store (episode/s3store)
// is another. Names are slash-separated and relative to the root
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
	List(prefix string) ([]BlobInfo, error)
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

// BlobInfo is one listed blob.
type BlobInfo struct {
	Name string
	Size int64
}

// ErrPrecondition: a conditional Put found the blob absent, present or
// at another version than asked; re-read it and try again.
var ErrPrecondition = errors.New("episode: the stored version changed (another writer); re-read and retry")

// ErrTooLarge: a blob is larger than the reader's cap; it was not read.
var ErrTooLarge = errors.New("episode: blob larger than the cap")

// CheckBlobName refuses names that could leave the root.
func CheckBlobName(name string) error {
	if name == "" || strings.HasPrefix(name, "/") || path.Clean(name) != name || name == ".." ||
		strings.HasPrefix(name, "../") || strings.ContainsRune(name, 0) {
		return fmt.Errorf("%w: blob name %.140q", ErrRefused, name)
	}
	return nil
}

// DirBlobs is Blobs on a local (or shared POSIX) directory. A
// conditional write holds an flock on .blobs.lock in the blob's
// directory for the check and the write, so it is atomic between the
// processes of one host (and on file systems whose flock is coherent).
// A version is the content's length and CRC32C.
type DirBlobs struct {
	Root string
	// WriteFile writes a whole file atomically, creating its directory.
	// Default: os.MkdirAll, then fsutil.WriteFileAtomic.
	WriteFile func(path string, b []byte) error
}

// dirLock is the file a conditional write locks (a dot name: readers
// and List skip it).
const dirLock = ".blobs.lock"

func (d DirBlobs) String() string { return d.Root }

func (d DirBlobs) path(name string) (string, error) {
	if err := CheckBlobName(name); err != nil {
		return "", err
	}
	return filepath.Join(d.Root, filepath.FromSlash(name)), nil
}

func dirVersion(b []byte) string {
	return strconv.Itoa(len(b)) + "-" + strconv.FormatUint(uint64(crc32.Checksum(b, castagnoli)), 16)
}

// Get implements Blobs.
func (d DirBlobs) Get(name string, max int64) ([]byte, string, error) {
	p, err := d.path(name)
	if err != nil {
		return nil, "", err
	}
	if fi, err := os.Stat(p); err == nil && fi.Size() > max {
		return nil, "", fmt.Errorf("%w: %s has %d bytes, at most %d read", ErrTooLarge, name, fi.Size(), max)
	}
	b, err := fsutil.ReadFileCapped(p, max)
	if err != nil {
		return nil, "", err
	}
	return b, dirVersion(b), nil
}

// Put implements Blobs.
func (d DirBlobs) Put(name string, b []byte, cond Cond) (string, error) {
	p, err := d.path(name)
	if err != nil {
		return "", err
	}
	write := d.WriteFile
	if write == nil {
		write = writeFileAtomic
	}
	if cond == (Cond{}) {
		err := write(p, b)
		if errors.Is(err, fs.ErrNotExist) { // Delete removed the directory it found empty, after write made it
			err = write(p, b)
		}
		return dirVersion(b), err
	}
	unlock, err := lockDir(filepath.Dir(p))
	if err != nil {
		return "", err
	}
	defer unlock()
	if cond.IfAbsent {
		if _, err := os.Lstat(p); err == nil {
			return "", fmt.Errorf("%w: %s exists", ErrPrecondition, name)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("episode: %w", err)
		}
		return dirVersion(b), write(p, b)
	}
	cur, err := fsutil.ReadFileCapped(p, maxFileBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("%w: %s is absent", ErrPrecondition, name)
	case err != nil:
		return "", err
	case dirVersion(cur) != cond.IfVersion:
		return "", fmt.Errorf("%w: %s changed", ErrPrecondition, name)
	}
	return dirVersion(b), write(p, b)
}

// lockDir takes the flock of dir's .blobs.lock (creating dir). Delete
// removes a lock file (and its directory) once nothing else is left
// there, holding the flock: a writer that opened that file before it
// was removed finds, once it has the lock, that the file is no longer
// dir's, and starts again (the directory made anew).
func lockDir(dir string) (func(), error) {
	for range 100 {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("episode: %w", err)
		}
		f, err := lockFile(filepath.Join(dir, dirLock), os.O_RDWR|os.O_CREATE)
		if errors.Is(err, fs.ErrNotExist) { // Delete removed dir after MkdirAll
			continue
		}
		if err != nil {
			return nil, err
		}
		if f != nil {
			return func() { f.Close() }, nil // closing releases the flock
		}
	}
	return nil, fmt.Errorf("episode: lock %s: removed under every attempt; retry", filepath.Join(dir, dirLock))
}

// lockFile opens and flocks the lock file at p; nil (no error) when
// the file it locked is no longer p's (removed meanwhile).
func lockFile(p string, flag int) (*os.File, error) {
	f, err := os.OpenFile(p, flag, 0o644)
	if err != nil {
		return nil, fmt.Errorf("episode: open %s: %w", dirLock, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("episode: lock %s: %w", dirLock, err)
	}
	held, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("episode: lock %s: %w", dirLock, err)
	}
	if cur, err := os.Stat(p); err != nil || !os.SameFile(held, cur) {
		f.Close()
		return nil, nil
	}
	return f, nil
}

// List implements Blobs. Temporary files of atomic writes in progress
// (dot names) are not listed.
func (d DirBlobs) List(prefix string) ([]BlobInfo, error) {
	var out []BlobInfo
	start := d.Root
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		start = filepath.Join(d.Root, filepath.FromSlash(prefix[:i]))
	}
	err := filepath.WalkDir(start, func(p string, de fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if strings.HasPrefix(de.Name(), ".") && p != start {
			if de.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !de.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(d.Root, p)
		rel = filepath.ToSlash(rel)
		if !strings.HasPrefix(rel, prefix) {
			return nil
		}
		fi, err := de.Info()
		if err != nil {
			return nil // removed while we walk
		}
		out = append(out, BlobInfo{Name: rel, Size: fi.Size()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("episode: list %s: %w", start, err)
	}
	return out, nil
}

// Delete implements Blobs. Like an object store, a directory holds no
// trace of a name once deleted: the directories the last blob leaves
// empty (but for a conditional write's lock file) are removed, up to
// the root. A sink group stages and removes the chunks of every
// chunked message in a directory of their own, which left two
// directories and a lock file behind per message.
func (d DirBlobs) Delete(name string) error {
	p, err := d.path(name)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("episode: %w", err)
	}
	root := filepath.Clean(d.Root)
	for dir := filepath.Dir(p); dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)); dir = filepath.Dir(dir) {
		if !removeEmptyDir(dir) {
			break
		}
	}
	return nil
}

// removeEmptyDir removes dir when it holds nothing but, at most, its
// lock file (removed under its flock, so no conditional write is in
// between); false when dir holds anything else or is not removed.
func removeEmptyDir(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) > 1 || len(ents) == 1 && ents[0].Name() != dirLock {
		return false
	}
	if len(ents) == 0 {
		return os.Remove(dir) == nil
	}
	lock := filepath.Join(dir, dirLock)
	f, err := lockFile(lock, os.O_RDWR)
	if err != nil || f == nil {
		return false
	}
	defer f.Close()
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 1 { // a blob written meanwhile
		return false
	}
	if os.Remove(lock) != nil {
		return false
	}
	return os.Remove(dir) == nil
}

// SubBlobs is the part of b under prefix/ (a store's episodes/ beside
// the sink's own files).
func SubBlobs(b Blobs, prefix string) Blobs { return sub{b, strings.TrimSuffix(prefix, "/") + "/"} }

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
func (s sub) List(prefix string) ([]BlobInfo, error) {
	l, err := s.b.List(s.prefix + prefix)
	for i := range l {
		l[i].Name = strings.TrimPrefix(l[i].Name, s.prefix)
	}
	return l, err
}

// sameBlob reports whether name holds exactly b (reading at most len(b)+1
// bytes of it): the idempotence test of a write-once file.
func sameBlob(bl Blobs, name string, b []byte) (bool, error) {
	old, _, err := bl.Get(name, int64(len(b))+1)
	if err != nil {
		if errors.Is(err, ErrTooLarge) {
			return false, nil
		}
		return false, err
	}
	return bytes.Equal(old, b), nil
}

// Mirror copies the blobs under prefix of b into dir (named without the
// prefix), so that the readers (List, Load, ReadCost), which read
// directories, read a store kept in an object store: inspect, score,
// export and report take s3:// through it. Files a receiver writes once
// are fetched when absent or of another size; the manifest and the
// record files, which change, every time. The sink's own files (dot
// names) are left out.
func Mirror(b Blobs, prefix, dir string) error {
	return MirrorWith(b, prefix, dir, MirrorOptions{})
}

// MirrorOptions choose what a mirror fetches and how.
type MirrorOptions struct {
	// RecordsOnly fetches only each episode's manifest and record files
	// (segments, transitions): what List and Resolve read, a few KB an
	// episode, where the sheets are most of a store's bytes. A fleet's
	// store is listed this way, then the one episode wanted is mirrored
	// whole.
	RecordsOnly bool
	// Workers is how many blobs are fetched at once (default 8): on an
	// object store each GET is a round trip, and a mirror of many small
	// files is bound by their latency, not by bandwidth.
	Workers int
}

// MirrorWith is Mirror with options. A prefix names a folder: "a/b"
// mirrors what is under a/b/, never a/b-2/.
func MirrorWith(b Blobs, prefix, dir string, o MirrorOptions) error {
	if prefix != "" && !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	list, err := b.List(prefix)
	if err != nil {
		return err
	}
	workers := o.Workers
	if workers <= 0 {
		workers = 8
	}
	var g errgroup.Group
	g.SetLimit(workers)
	for _, f := range list {
		rel := strings.TrimPrefix(f.Name, prefix)
		if rel == "" || strings.HasPrefix(rel, ".") || strings.Contains(rel, "/.") {
			continue
		}
		base := path.Base(rel)
		changes := base == manifestName || base == segmentsName || base == transitionsName
		if o.RecordsOnly && !changes {
			continue
		}
		local := filepath.Join(dir, filepath.FromSlash(rel))
		if fi, err := os.Stat(local); err == nil && fi.Size() == f.Size && !changes {
			continue
		}
		g.Go(func() error { return mirrorOne(b, f.Name, local, dir) })
	}
	return g.Wait()
}

func mirrorOne(b Blobs, name, local, dir string) error {
	body, _, err := b.Get(name, maxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // removed since listed
	}
	if err != nil {
		return fmt.Errorf("episode: mirror %s: %w", name, err)
	}
	if err := writeFileAtomic(local, body); err != nil {
		return fmt.Errorf("episode: mirror into %s: %w", dir, err)
	}
	return nil
}
