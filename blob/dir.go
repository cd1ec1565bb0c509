package blob

import (
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/edged-robotics/edged/internal/fsutil"
)

// Dir is Blobs on a local (or shared POSIX) directory. A
// conditional write holds an flock on .blobs.lock in the blob's
// directory for the check and the write, so it is atomic between the
// processes of one host (and on file systems whose flock is coherent).
// A version is the content's length and CRC32C.
type Dir struct {
	Root string
	// WriteFile writes a whole file atomically, creating its directory.
	// Default: os.MkdirAll, then fsutil.WriteFileAtomic.
	WriteFile func(path string, b []byte) error
}

// dirLock is the file a conditional write locks (a dot name: readers
// and List skip it).
const dirLock = ".blobs.lock"

func (d Dir) String() string { return d.Root }

func (d Dir) path(name string) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	return filepath.Join(d.Root, filepath.FromSlash(name)), nil
}

func dirVersion(b []byte) string {
	return strconv.Itoa(len(b)) + "-" + strconv.FormatUint(uint64(crc32.Checksum(b, castagnoli)), 16)
}

// Get implements Blobs.
func (d Dir) Get(name string, max int64) ([]byte, string, error) {
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
func (d Dir) Put(name string, b []byte, cond Cond) (string, error) {
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
			return "", fmt.Errorf("blob: %w", err)
		}
		return dirVersion(b), write(p, b)
	}
	cur, err := fsutil.ReadFileCapped(p, maxVersionRead)
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
		if err := os.MkdirAll(dir, 0o755); errors.Is(err, fs.ErrNotExist) {
			continue // Delete removed a parent MkdirAll had just made
		} else if err != nil {
			return nil, fmt.Errorf("blob: %w", err)
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
	return nil, fmt.Errorf("blob: lock %s: removed under every attempt; retry", filepath.Join(dir, dirLock))
}

// lockFile opens and flocks the lock file at p; nil (no error) when
// the file it locked is no longer p's (removed meanwhile).
func lockFile(p string, flag int) (*os.File, error) {
	f, err := os.OpenFile(p, flag, 0o644)
	if err != nil {
		return nil, fmt.Errorf("blob: open %s: %w", dirLock, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("blob: lock %s: %w", dirLock, err)
	}
	held, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("blob: lock %s: %w", dirLock, err)
	}
	if cur, err := os.Stat(p); err != nil || !os.SameFile(held, cur) {
		f.Close()
		return nil, nil
	}
	return f, nil
}

// List implements Blobs. Temporary files of atomic writes in progress
// (dot names) are not listed.
func (d Dir) List(prefix string) ([]Info, error) {
	var out []Info
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
		out = append(out, Info{Name: rel, Size: fi.Size()})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("blob: list %s: %w", start, err)
	}
	return out, nil
}

// Delete implements Blobs. Like an object store, a directory holds no
// trace of a name once deleted: the directories the last blob leaves
// empty (but for a conditional write's lock file) are removed, up to
// the root. A sink group stages and removes the chunks of every
// chunked message in a directory of their own, which left two
// directories and a lock file behind per message.
func (d Dir) Delete(name string) error {
	p, err := d.path(name)
	if err != nil {
		return err
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("blob: %w", err)
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

// maxVersionRead caps the read of a blob whose version a conditional
// Put compares (a directory's version is its content's CRC).
const maxVersionRead = 512 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("blob: %w", err)
	}
	return fsutil.WriteFileAtomic(path, b)
}
