package episode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/edged-robotics/edged/internal/fsutil"
)

// Receiver writes the episodes robots ship into a store directory (the
// sink's OUT/episodes), in exactly the format of a robot's store: a
// manifest.json of format 1, the segments as records of segments.rec
// under the robot's own index, and the sheets, labeling sheets and
// snippets where layout.go puts them. Every reader of a robot's store
// (inspect, score, export, report) reads it unchanged.
//
// Rules: an episode id must belong to the robot that sends it
// (CheckID); a segment index, once held, is never given another record;
// a file, once written, is never replaced by another content (both
// ErrConflict); the manifest is the receiver's own and is replaced
// atomically as what it holds grows: the robot's fields (episode_start,
// then episode_end, which is written once) plus Held and Complete.
//
// A Receiver is not safe for concurrent use (the sink serializes its
// messages); it holds the store's flock, so a second receiver or an
// edged run on the same directory fails fast.
type Receiver struct {
	dir   string
	opts  ReceiverOptions
	lock  *os.File
	eps   map[string]*received
	order []string // ids in eps, oldest first, for eviction
}

// ReceiverOptions are the receiver's hooks. Zero fields take defaults.
type ReceiverOptions struct {
	// WriteFile writes a whole file atomically, creating its directory.
	// Default: os.MkdirAll, then fsutil.WriteFileAtomic.
	WriteFile func(path string, b []byte) error
	// AppendFile appends b to path (created if absent) and fsyncs it.
	AppendFile func(path string, b []byte) error
	// MaxCached is how many episodes' state stays in memory between
	// messages (it is reloaded from disk after). Default 64.
	MaxCached int
}

// ErrConflict: what arrived differs from what the receiver holds already
// (another record for a segment index, another content for a file,
// another end manifest). Nothing was changed; do not retry.
var ErrConflict = errors.New("episode: different content is held already; not replaced")

// ErrRefused: the message breaks the layout's rules (an id of another
// robot, a bad name). Nothing was written; do not retry.
var ErrRefused = errors.New("episode: refused")

// received is what the receiver knows of one episode.
type received struct {
	dir  string
	m    Manifest
	segs map[int][]byte // segment index -> its record's payload
	held Held
	last []byte // the manifest as last written
	// costKey is the manifest (without Cost) the cost was computed for.
	costKey []byte
}

// OpenReceiver creates dir if needed and locks it.
func OpenReceiver(dir string, o ReceiverOptions) (*Receiver, error) {
	if o.WriteFile == nil {
		o.WriteFile = writeFileAtomic
	}
	if o.AppendFile == nil {
		o.AppendFile = appendSync
	}
	if o.MaxCached <= 0 {
		o.MaxCached = 64
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("episode: create %s: %w (check --out and its permissions)", dir, err)
	}
	lf, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("episode: open lock file: %w", err)
	}
	if err := syscall.Flock(int(lf.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		lf.Close()
		return nil, fmt.Errorf("%w: %s (another edged sink or edged run writes it; use another --out)", ErrLocked, dir)
	}
	_ = lf.Truncate(0)
	_, _ = lf.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return &Receiver{dir: dir, opts: o, lock: lf, eps: map[string]*received{}}, nil
}

// Dir is the store directory.
func (r *Receiver) Dir() string { return r.dir }

// Close releases the lock.
func (r *Receiver) Close() error {
	if r.lock == nil {
		return nil
	}
	err := r.lock.Close()
	r.lock = nil
	return err
}

// Manifest takes a manifest the robot shipped: episode_start (Closed
// false) fills an episode's robot fields once, episode_end (Closed true)
// replaces them once; a start after the end is ignored, the same
// manifest again is a no-op, another one ErrConflict. completed reports
// that this call made the episode complete.
func (r *Receiver) Manifest(robot string, m Manifest) (completed bool, err error) {
	e, err := r.load(robot, m.ID)
	if err != nil {
		return false, err
	}
	if m.Robot != robot {
		return false, fmt.Errorf("%w: manifest of robot %.140q sent by %.140q", ErrRefused, m.Robot, robot)
	}
	cur, next := robotFields(e.m), robotFields(m)
	switch {
	case bytes.Equal(cur, next):
		return r.commit(e)
	case e.m.Closed:
		if !m.Closed {
			return r.commit(e) // a start after the end: the end says more
		}
		return false, fmt.Errorf("%w: %s has another end manifest", ErrConflict, m.ID)
	case !m.Closed && !e.m.Start.IsZero():
		return false, fmt.Errorf("%w: %s has another start manifest", ErrConflict, m.ID)
	}
	held, complete, cost := e.m.Held, e.m.Complete, e.m.Cost
	e.m = m
	e.m.Format, e.m.ID, e.m.Held, e.m.Complete, e.m.Cost = ManifestFormat, filepath.Base(e.dir), held, complete, cost
	e.m.Uploaded, e.m.Recovery = false, nil
	return r.commit(e)
}

// robotFields is the part of a manifest the robot writes, encoded.
func robotFields(m Manifest) []byte {
	m.Format, m.Held, m.Complete, m.Uploaded, m.Recovery, m.Cost = 0, nil, false, false, nil, nil
	b, _ := json.Marshal(m)
	return b
}

// maxSegmentIndex bounds a segment index taken from the wire.
const maxSegmentIndex = 1 << 24

// Segment appends segment s (its Index is the robot's) to the episode's
// segments.rec, once per index.
func (r *Receiver) Segment(robot, id string, s Segment) (completed bool, err error) {
	if s.Index < 0 || s.Index >= maxSegmentIndex {
		return false, fmt.Errorf("%w: segment index %d out of range", ErrRefused, s.Index)
	}
	e, err := r.load(robot, id)
	if err != nil {
		return false, err
	}
	p, err := json.Marshal(s)
	if err != nil || len(p) > MaxRecordBytes {
		return false, fmt.Errorf("%w: segment %d cannot be a record (%d bytes, %v)", ErrRefused, s.Index, len(p), err)
	}
	if old, ok := e.segs[s.Index]; ok {
		if !bytes.Equal(old, p) {
			return false, fmt.Errorf("%w: %s has another segment %d", ErrConflict, id, s.Index)
		}
		return r.commit(e)
	}
	path := filepath.Join(e.dir, segmentsName)
	var rec []byte
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		rec = fileHeader() // a new file: the first record comes after the header
	}
	if err := r.opts.AppendFile(path, appendRecord(rec, p)); err != nil {
		r.forget(id) // reload from disk: a failed append may have left a torn tail
		return false, err
	}
	e.segs[s.Index] = p
	e.held.Segments = len(e.segs)
	return r.commit(e)
}

var (
	contactName = regexp.MustCompile(`^sheet-[0-9]{4,9}$`)
	labelName   = regexp.MustCompile(`^label-[A-Za-z0-9._-]{1,100}$`)
)

// Sheet writes a contact sheet (label false; name SheetName(index)) or
// a labeling sheet (name label-...) of camera: NAME.jpg, then NAME.json.
func (r *Receiver) Sheet(robot, id, camera, name string, label bool, jpeg, meta []byte) (completed bool, err error) {
	dir := ""
	switch {
	case !label && contactName.MatchString(name):
	case label && labelName.MatchString(name) && !strings.HasSuffix(name, "."):
	default:
		return false, fmt.Errorf("%w: sheet name %.140q", ErrRefused, name)
	}
	e, err := r.load(robot, id)
	if err != nil {
		return false, err
	}
	if label {
		dir = LabelDir(e.dir, camera)
	} else {
		dir = SheetDir(e.dir, camera)
	}
	if _, err := r.put(filepath.Join(dir, name+".jpg"), jpeg); err != nil {
		return false, err
	}
	wrote, err := r.put(filepath.Join(dir, name+".json"), meta)
	if err != nil {
		return false, err
	}
	if wrote {
		c := e.held.camera(CameraDir(camera))
		if label {
			c.LabelSheets++
		} else {
			c.Sheets++
		}
		e.held.Cameras[CameraDir(camera)] = *c
	}
	return r.commit(e)
}

// Snippet writes the state snippet of contact sheet index of camera.
func (r *Receiver) Snippet(robot, id, camera string, index int, body []byte) (completed bool, err error) {
	if index < 0 || index >= maxSegmentIndex {
		return false, fmt.Errorf("%w: snippet index %d out of range", ErrRefused, index)
	}
	e, err := r.load(robot, id)
	if err != nil {
		return false, err
	}
	wrote, err := r.put(SnippetPath(e.dir, camera, index), body)
	if err != nil {
		return false, err
	}
	if wrote {
		c := e.held.camera(CameraDir(camera))
		c.Snippets++
		e.held.Cameras[CameraDir(camera)] = *c
	}
	return r.commit(e)
}

func (h *Held) camera(dir string) *CameraCounts {
	if h.Cameras == nil {
		h.Cameras = map[string]CameraCounts{}
	}
	c := h.Cameras[dir]
	return &c
}

// IsComplete reports whether m, with the segment indexes in has, is
// complete: closed (the end manifest arrived), every segment index below
// m.Segments held, and per camera at least the Produced counts held.
func IsComplete(m *Manifest, has func(index int) bool) bool {
	if !m.Closed || m.Held == nil || m.Held.Segments < m.Segments {
		return false
	}
	for i := range m.Segments {
		if !has(i) {
			return false
		}
	}
	for cam, want := range m.Produced {
		got := m.Held.Cameras[cam]
		if got.Sheets < want.Sheets || got.LabelSheets < want.LabelSheets || got.Snippets < want.Snippets {
			return false
		}
	}
	return true
}

// commit writes the manifest when what it says changed.
func (r *Receiver) commit(e *received) (completed bool, err error) {
	was := e.m.Complete
	h := e.held
	h.Cameras = copyCounts(e.held.Cameras)
	e.m.Held = &h
	e.m.Complete = IsComplete(&e.m, func(i int) bool { _, ok := e.segs[i]; return ok })
	if e.m.Complete {
		// The cost line of what arrived, once all of it has: one walk of
		// the directory per change to a complete episode (a duplicate
		// of what is held changes nothing and walks nothing).
		cost := e.m.Cost
		e.m.Cost = nil
		key, _ := json.Marshal(e.m)
		if cost == nil || !bytes.Equal(key, e.costKey) {
			c, err := costOf(e.dir, &e.m)
			if err != nil {
				return false, err
			}
			cost, e.costKey = &c, key
		}
		e.m.Cost = cost
	}
	b, err := json.MarshalIndent(e.m, "", "  ")
	if err != nil {
		return false, fmt.Errorf("episode: manifest: %w", err)
	}
	b = append(b, '\n')
	if bytes.Equal(b, e.last) {
		return false, nil
	}
	if err := r.opts.WriteFile(filepath.Join(e.dir, manifestName), b); err != nil {
		r.forget(filepath.Base(e.dir))
		return false, err
	}
	e.last = b
	return e.m.Complete && !was, nil
}

func copyCounts(m map[string]CameraCounts) map[string]CameraCounts {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]CameraCounts, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// put writes path once: absent, it is written (wrote true); present with
// the same content, nothing happens; with another content, ErrConflict.
func (r *Receiver) put(path string, b []byte) (wrote bool, err error) {
	same, err := sameContent(path, b)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return true, r.opts.WriteFile(path, b)
	case err != nil:
		return false, err
	case !same:
		return false, fmt.Errorf("%w: %s", ErrConflict, path)
	}
	return false, nil
}

// sameContent reports whether path holds exactly b, reading at most
// len(b) bytes of it.
func sameContent(path string, b []byte) (bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	if !fi.Mode().IsRegular() || fi.Size() != int64(len(b)) {
		return false, nil
	}
	old, err := fsutil.ReadFileCapped(path, int64(len(b)))
	if err != nil {
		return false, err
	}
	return bytes.Equal(old, b), nil
}

func (r *Receiver) forget(id string) {
	delete(r.eps, id)
}

// load returns the state of episode id of robot, from memory or disk.
func (r *Receiver) load(robot, id string) (*received, error) {
	if err := CheckID(robot, id); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	if e := r.eps[id]; e != nil {
		return e, nil
	}
	e, err := r.read(robot, id)
	if err != nil {
		return nil, err
	}
	r.eps[id] = e
	r.order = append(r.order, id)
	for len(r.order) > r.opts.MaxCached {
		delete(r.eps, r.order[0])
		r.order = r.order[1:]
	}
	return e, nil
}

func (r *Receiver) read(robot, id string) (*received, error) {
	dir := filepath.Join(r.dir, id)
	e := &received{dir: dir, segs: map[int][]byte{}}
	switch m, err := readManifest(dir); {
	case err == nil:
		if m.Robot != robot {
			return nil, fmt.Errorf("%w: %s belongs to robot %.140q", ErrConflict, id, m.Robot)
		}
		e.m = m
		e.last, _ = fsutil.ReadFileCapped(filepath.Join(dir, manifestName), maxManifest)
	case errors.Is(err, fs.ErrNotExist):
		e.m = Manifest{Format: ManifestFormat, ID: id, Robot: robot}
		if err := os.Mkdir(dir, 0o755); err == nil {
			if err := fsutil.SyncDir(r.dir); err != nil {
				return nil, err
			}
		} else if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("episode: %w", err)
		}
	default:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, err // an I/O error: worth a retry
		}
		return nil, fmt.Errorf("%w: %w (move the episode directory aside to receive it again)", ErrRefused, err)
	}
	e.m.ID = id
	if err := e.readSegments(); err != nil {
		return nil, err
	}
	if err := e.countFiles(); err != nil {
		return nil, err
	}
	return e, nil
}

// readSegments loads the held segment records, cutting a torn tail left
// by a crash mid-append so the next append starts on a record boundary.
func (e *received) readSegments() error {
	path := filepath.Join(e.dir, segmentsName)
	b, err := fsutil.ReadFileCapped(path, maxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	sc, err := scanRecords(b)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if sc.Torn.Len > 0 {
		if err := os.Truncate(path, int64(sc.GoodEnd)); err != nil {
			return fmt.Errorf("episode: cut the torn tail of %s: %w", path, err)
		}
	}
	for _, p := range sc.Records {
		var s Segment
		if json.Unmarshal(p, &s) != nil {
			continue
		}
		if _, ok := e.segs[s.Index]; !ok {
			e.segs[s.Index] = append([]byte(nil), p...)
		}
	}
	e.held.Segments = len(e.segs)
	return nil
}

// countFiles counts the sheets, labeling sheets and snippets on disk.
func (e *received) countFiles() error {
	count := func(sub, prefix, suffix string, add func(c *CameraCounts)) error {
		cams, err := os.ReadDir(filepath.Join(e.dir, sub))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, cam := range cams {
			if !cam.IsDir() {
				continue
			}
			files, err := os.ReadDir(filepath.Join(e.dir, sub, cam.Name()))
			if err != nil {
				return err
			}
			c := e.held.camera(cam.Name())
			for _, f := range files {
				if n := f.Name(); strings.HasPrefix(n, prefix) && strings.HasSuffix(n, suffix) {
					add(c)
				}
			}
			e.held.Cameras[cam.Name()] = *c
		}
		return nil
	}
	if err := count(SheetsDir, "sheet-", ".json", func(c *CameraCounts) { c.Sheets++ }); err != nil {
		return err
	}
	if err := count(LabelsDir, "label-", ".json", func(c *CameraCounts) { c.LabelSheets++ }); err != nil {
		return err
	}
	return count(SnippetsDir, "sheet-", SnippetExt, func(c *CameraCounts) { c.Snippets++ })
}

func writeFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("episode: %w", err)
	}
	return fsutil.WriteFileAtomic(path, b)
}

func appendSync(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("episode: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("episode: %w", err)
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("episode: append to %s: %w", path, err)
	}
	return nil
}
