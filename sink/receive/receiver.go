package receive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
)

// Receiver writes the episodes robots ship into a store (the sink's
// OUT/episodes, a directory or an object store: Blobs), in exactly the
// format of a robot's store: a manifest.json of format 1, the segments
// as records of segments.rec under the robot's own index, and the
// sheets, labeling sheets and snippets where layout.go puts them. Every
// reader of a robot's store (inspect, score, export, report) reads it
// unchanged.
//
// Rules: an episode id must belong to the robot that sends it
// (CheckID); a segment index, once held, is never given another record;
// a file, once written, is never replaced by another content (both
// ErrConflict); the manifest is the receiver's own and is replaced
// atomically (when: below): the robot's fields (episode_start, then
// episode_end, which is written once) plus Held and Complete.
//
// Several receivers may write one store (sinks sharing a subscription,
// Options.Shared or an object store), and any of them may get
// any message of an episode. A message writes its own file (a sheet, a
// snippet: content-derived names, written once) or its record of the
// segments, and leaves the manifest alone while the episode is open:
// two receivers writing different messages of one episode do not
// contend (the manifest used to be rewritten by every message, so the
// receivers kept invalidating each other's view and re-reading the
// episode; two sinks carried 1.1x one sink's load). The manifest is
// written when the episode is first seen, when the robot's start or end
// manifest arrives, and by the message that makes it complete (Held;
// until then Held lags the files, and readers count them). Every change of a shared file (segments.rec,
// manifest.json) is conditional on the version read (Blobs.Put with
// Cond); when another receiver changed it meanwhile the receiver
// re-reads and applies its change again (counted: Races). A message's
// writer reads the manifest after its write, the end's writer lists the
// files after its manifest write, so one of them always sees both; what
// is held is the set of files present, so a file written twice by two
// receivers counts once, and exactly one manifest write turns Complete
// from false to true: that receiver reports completed.
//
// A Receiver is safe for concurrent use: calls for one episode are
// serialized (a sink hands it messages of different robots at once).
// On a directory it holds the store's flock (shared when Shared, so
// several sinks may write it but an edged run may not).
type Receiver struct {
	dir   string
	blobs blob.Blobs
	opts  Options
	lock  *os.File
	races atomic.Uint64
	mu    sync.Mutex // guards busy, eps and order
	busy  map[string]*episodeLock
	eps   map[string]*received
	order []string // ids in eps, oldest first, for eviction
}

// episodeLock serializes the calls for one episode; n counts the calls
// holding or waiting for it (at zero it is dropped).
type episodeLock struct {
	sync.Mutex
	n int
}

// Options are the receiver's hooks. Zero fields take defaults.
type Options struct {
	// Blobs, when set, is the store (dir is then only its name); the
	// default is blob.Dir on dir with WriteFile.
	Blobs blob.Blobs
	// WriteFile writes a whole file atomically, creating its directory.
	// Default: os.MkdirAll, then fsutil.WriteFileAtomic.
	WriteFile func(path string, b []byte) error
	// Shared lets other receivers (other sinks) write the same
	// directory: its flock is taken shared instead of exclusive.
	Shared bool
	// MaxCached is how many episodes' state stays in memory between
	// messages (it is reloaded from the store after, and whenever the
	// stored manifest is not the one last seen). Default 64.
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
	id   string
	m    episode.Manifest
	mver string // the stored manifest's version; "" when absent
	segs map[int][]byte
	// segRec is segments.rec up to its last good record, segVer its
	// version ("" when absent).
	segRec   []byte
	segVer   string
	segsRead bool             // segs, segRec and segVer are read
	files    map[string]int64 // held files, relative to the episode -> size
	last     []byte           // the manifest as last written or read
	// costKey is the manifest (without Cost) the cost was computed for.
	costKey []byte
	cost    *episode.Cost
}

// Open opens the store dir (created if needed; locked when it
// is a directory).
func Open(dir string, o Options) (*Receiver, error) {
	if o.MaxCached <= 0 {
		o.MaxCached = 64
	}
	r := &Receiver{dir: dir, blobs: o.Blobs, opts: o, eps: map[string]*received{}, busy: map[string]*episodeLock{}}
	if r.blobs != nil {
		return r, nil
	}
	r.blobs = blob.Dir{Root: dir, WriteFile: o.WriteFile}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("episode: create %s: %w (check --out and its permissions)", dir, err)
	}
	lf, err := episode.LockStore(dir, o.Shared)
	if err != nil {
		return nil, fmt.Errorf("%w; another edged sink or edged run writes it: use another --out, or --group for sinks sharing it", err)
	}
	r.lock = lf
	return r, nil
}

// Dir is the store's name (its directory, or its object store URL).
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

// maxRaces bounds how often one change is re-applied because another
// receiver changed the episode meanwhile.
const maxRaces = 16

// tornRereads and tornBackoff bound the re-reads of a shared store's
// manifest that did not parse (10, 20, 40, 80, 160 ms: 310 ms in all).
const (
	tornRereads = 5
	tornBackoff = 10 * time.Millisecond
)

// errManifestUnreadable marks a manifest that did not parse.
var errManifestUnreadable = errors.New("manifest unreadable")

// update applies change to episode id of robot and commits its
// manifest, again on a fresh read whenever another receiver won a race.
// In a shared store the episode is read afresh every time (other
// receivers add files without touching the manifest, so no cached view
// is current), and a commit that closed the episode but left it
// incomplete is followed by another read: a file whose writer saw the
// manifest still open was written before this commit, and this read is
// the one that counts it (see add).
func (r *Receiver) update(robot, id string, change func(e *received) error) (completed bool, err error) {
	for range maxRaces {
		if r.opts.Shared {
			r.forget(id)
		}
		e, err := r.load(robot, id)
		if err != nil {
			return completed, err
		}
		wasClosed := e.m.Closed
		err = change(e)
		var done, wrote bool
		if err == nil {
			done, wrote, err = r.commit(e)
			completed = completed || done
		}
		switch {
		case err == nil && wrote && r.opts.Shared && !wasClosed && e.m.Closed && !e.m.Complete:
			// This write closed the manifest: read what was added
			// meanwhile (a file written after it finds it closed and
			// counts itself).
			continue
		case errors.Is(err, blob.ErrPrecondition):
			r.races.Add(1)
			r.forget(id)
			continue
		case err != nil && !errors.Is(err, ErrConflict) && !errors.Is(err, ErrRefused):
			r.forget(id) // a failed write: re-read the store next time
		}
		return completed, err
	}
	return completed, fmt.Errorf("episode: %s: lost %d races to other writers; will retry", id, maxRaces)
}

// add writes what one message adds to episode id (a sheet, a snippet,
// a segment record) through write, and commits the manifest only when
// it must: when the episode has none yet, and once the end manifest has
// arrived (the episode is closed), when what is held makes it complete.
// Until then its manifest is left alone,
// so receivers sharing a store write different messages of one episode
// without contending for it; its Held then lags the files present
// (readers count them: Load).
//
// The manifest is read after the write, never before: the writer of the
// end manifest reads the files after its own write (update), so either
// that read sees this file or this read sees the closed manifest, and
// the episode cannot stay incomplete with everything held.
func (r *Receiver) add(robot, id string, write func(e *received) error) (completed bool, err error) {
	var e *received
	if r.opts.Shared {
		// No view of the episode is needed: the write's conditions are
		// its own.
		if err := episode.CheckID(robot, id); err != nil {
			return false, fmt.Errorf("%w: %w", ErrRefused, err)
		}
		e = &received{id: id, segs: map[int][]byte{}, files: map[string]int64{}}
	} else if e, err = r.load(robot, id); err != nil {
		return false, err // the only writer: the cached view is the store
	}
	if err := write(e); err != nil {
		if !errors.Is(err, ErrConflict) && !errors.Is(err, ErrRefused) {
			r.forget(id)
		}
		return false, err
	}
	if !r.opts.Shared {
		if e.mver != "" && !e.m.Closed {
			return false, nil
		}
	} else if may, err := r.mayComplete(id); err != nil || !may {
		return false, err
	}
	return r.update(robot, id, func(*received) error { return nil })
}

// mayComplete reports whether what a message just wrote into episode id
// may have completed it, so that it is worth reading the whole episode
// (update): not while the manifest is open; once it is closed, only when
// the episode's files are as many as the end manifest announced (a
// LIST). With two sinks of a round-robin broker, the one behind gets
// most of a robot's messages after the other took its end; each of them
// used to read the whole episode (the manifest twice, segments.rec, a
// LIST) and marshal a manifest to compare, and the one behind fell
// further behind. An absent or unreadable manifest is for update to
// judge. Segments are not counted here: update reads them.
func (r *Receiver) mayComplete(id string) (bool, error) {
	b, _, err := r.blobs.Get(id+"/"+episode.ManifestFile, episode.MaxManifestBytes)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, blob.ErrTooLarge):
		return true, nil
	case err != nil:
		return false, err
	}
	var m struct {
		Format   int                             `json:"format"`
		Closed   bool                            `json:"closed"`
		Complete bool                            `json:"complete"`
		Produced map[string]episode.CameraCounts `json:"produced"`
	}
	switch {
	case json.Unmarshal(b, &m) != nil || m.Format != episode.ManifestFormat || m.Complete:
		return true, nil
	case !m.Closed:
		return false, nil
	}
	list, err := r.blobs.List(id + "/")
	if err != nil {
		return false, err
	}
	names := make([]string, len(list))
	for i, f := range list {
		names[i] = strings.TrimPrefix(f.Name, id+"/")
	}
	return episode.HoldsProduced(episode.HeldOf(names, 0), m.Produced), nil
}

// Races counts the conditional writes this receiver lost to another
// receiver (each one re-read and applied again).
func (r *Receiver) Races() uint64 { return r.races.Load() }

// commit writes the manifest when what it says changed, conditional on
// the version read (blob.ErrPrecondition: another receiver changed it). Until
// the episode is complete and while its manifest exists, what is held
// alone is not worth a write: the manifest is written when the robot's
// fields change (a start or end manifest) or when what is held makes
// the episode complete. (Every message after the end used to rewrite
// it: with two sinks, the one behind got a robot's messages after the
// other had taken its end, paid a manifest write for each, fell further
// behind, and two saturated sinks carried 1.4x one.)
func (r *Receiver) commit(e *received) (completed, wrote bool, err error) {
	was := e.m.Complete
	h := e.held()
	complete := e.completeWith(h)
	if e.mver != "" && !was && !complete {
		if b, err := episode.EncodeManifest(e.m); err != nil || bytes.Equal(b, e.last) {
			return false, false, err
		}
	}
	e.m.Held, e.m.Complete = &h, complete
	e.m.Cost = nil
	if e.m.Complete {
		// The cost line of what arrived, once all of it has: computed
		// again only when what the manifest says changed.
		key, _ := json.Marshal(e.m)
		if e.cost == nil || !bytes.Equal(key, e.costKey) {
			c, err := r.costOf(e)
			if err != nil {
				return false, false, err
			}
			e.cost, e.costKey = &c, key
		}
		e.m.Cost = e.cost
	}
	b, err := episode.EncodeManifest(e.m)
	if err != nil || bytes.Equal(b, e.last) {
		return false, false, err
	}
	ver, err := r.blobs.Put(e.id+"/"+episode.ManifestFile, b, condOf(e.mver))
	if err != nil {
		return false, false, err
	}
	e.last, e.mver = b, ver
	return e.m.Complete && !was, true, nil
}

// costOf is the cost line of what e holds.
func (r *Receiver) costOf(e *received) (episode.Cost, error) {
	files := make([]blob.Info, 0, len(e.files))
	for rel, n := range e.files {
		files = append(files, blob.Info{Name: rel, Size: n})
	}
	c, err := episode.CostIn(r.blobs, e.id, files, &e.m)
	if err != nil {
		return c, fmt.Errorf("episode: cost of %s: %w", e.id, err)
	}
	return c, nil
}
