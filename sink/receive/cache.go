package receive

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
)

func (r *Receiver) forget(id string) {
	r.mu.Lock()
	delete(r.eps, id)
	r.mu.Unlock()
}

func (r *Receiver) cached(id string) *received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.eps[id]
}

// keep caches e, evicting the oldest beyond MaxCached.
func (r *Receiver) keep(e *received) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.eps[e.id]; !ok {
		r.order = append(r.order, e.id)
	}
	r.eps[e.id] = e
	for len(r.order) > r.opts.MaxCached {
		delete(r.eps, r.order[0])
		r.order = r.order[1:]
	}
}

// lockEpisode serializes the calls for episode id (only those: calls
// for other episodes never wait); it returns the unlock.
func (r *Receiver) lockEpisode(id string) func() {
	r.mu.Lock()
	l := r.busy[id]
	if l == nil {
		l = &episodeLock{}
		r.busy[id] = l
	}
	l.n++
	r.mu.Unlock()
	l.Lock()
	return func() {
		l.Unlock()
		r.mu.Lock()
		if l.n--; l.n == 0 {
			delete(r.busy, id)
		}
		r.mu.Unlock()
	}
}

// load returns the state of episode id of robot: the cached one while
// the stored manifest is the one it last wrote or read, else a fresh
// read of the store.
func (r *Receiver) load(robot, id string) (*received, error) {
	if err := episode.CheckID(robot, id); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	var e *received
	for attempt := 0; ; attempt++ {
		b, ver, err := r.blobs.Get(id+"/"+episode.ManifestFile, episode.MaxManifestBytes)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			b, ver = nil, ""
		case errors.Is(err, blob.ErrTooLarge):
			return nil, fmt.Errorf("%w: %w (move the episode aside to receive it again)", ErrRefused, err)
		case err != nil:
			return nil, err // an I/O error: worth a retry
		}
		if c := r.cached(id); c != nil && c.mver == ver {
			return c, nil
		}
		e, err = r.read(robot, id, b, ver)
		// A store that other sinks write may show a manifest mid-write
		// (an S3 gateway over a directory can): read it again before
		// refusing the episode for good.
		if errors.Is(err, errManifestUnreadable) && r.opts.Shared && attempt < tornRereads {
			time.Sleep(tornBackoff << attempt)
			continue
		}
		if err != nil {
			return nil, err
		}
		break
	}
	r.keep(e)
	return e, nil
}

// read builds e from the stored manifest b (nil: absent), segments.rec
// and the list of the episode's files.
func (r *Receiver) read(robot, id string, b []byte, ver string) (*received, error) {
	e := &received{id: id, mver: ver, segs: map[int][]byte{}, files: map[string]int64{}}
	if b == nil {
		e.m = episode.Manifest{Format: episode.ManifestFormat, ID: id, Robot: robot}
	} else {
		var err error
		if e.m, err = episode.DecodeManifest(b); err != nil {
			return nil, fmt.Errorf("%w: %s: %w (%w); move the episode aside to receive it again",
				ErrRefused, id, errManifestUnreadable, err)
		}
		if e.m.Robot != robot {
			return nil, fmt.Errorf("%w: %s belongs to robot %.140q", ErrConflict, id, e.m.Robot)
		}
		e.last = b
	}
	e.m.ID = id
	if e.m.Complete && e.m.Cost != nil {
		// The cost line is the completing receiver's: another one that
		// reads the same manifest keeps it (its own listing would see
		// the manifest at another size and write it again).
		c, key := *e.m.Cost, e.m
		key.Cost = nil
		e.cost = &c
		e.costKey, _ = json.Marshal(key)
	}
	if err := e.readSegments(r.blobs); err != nil {
		return nil, err
	}
	l, err := r.blobs.List(id + "/")
	if err != nil {
		return nil, err
	}
	for _, f := range l {
		e.files[strings.TrimPrefix(f.Name, id+"/")] = f.Size
	}
	return e, nil
}

// readSegments loads the held segment records. A torn tail (a crash
// mid-append of an older sink) is left out of segRec, so the next
// rewrite drops it.
func (e *received) readSegments(bl blob.Blobs) error {
	name := e.id + "/" + episode.SegmentsFile
	e.segs, e.segRec, e.segVer, e.segsRead = map[int][]byte{}, nil, "", false
	b, ver, err := bl.Get(name, episode.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		e.segsRead = true
		return nil
	}
	if err != nil {
		return err
	}
	sc, err := episode.ScanRecords(b)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	e.segRec, e.segVer, e.segsRead = b[:sc.GoodEnd], ver, true
	for _, p := range sc.Records {
		var s episode.Segment
		if json.Unmarshal(p, &s) != nil {
			continue
		}
		if _, ok := e.segs[s.Index]; !ok {
			e.segs[s.Index] = append([]byte(nil), p...)
		}
	}
	return nil
}
