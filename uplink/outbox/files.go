package outbox

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/edged-robotics/edged/internal/fsutil"
)

// append writes buf to the active file: the only file I/O done under
// o.mu. Rotation is the maintenance goroutine's, woken when the file is
// full.
func (o *Outbox) append(buf []byte) (*segFile, int64, error) {
	f := o.files[len(o.files)-1]
	base := f.size
	if _, err := f.f.WriteAt(buf, base); err != nil {
		// Do not leave a half record for the next append to follow.
		_ = f.f.Truncate(base)
		o.tombQ = o.tombQ[:0]
		return nil, 0, fmt.Errorf("outbox: write %s: %w (is the disk full?)", f.f.Name(), err)
	}
	f.size += int64(len(buf))
	f.dirty = true
	o.noteTombs(f)
	o.writeGen++
	o.stats.DiskBytes += int64(len(buf))
	if f.size >= o.opts.SegmentBytes {
		o.wakeMaintenance()
	}
	return f, base, nil
}

// appendTombstones writes tombstones, made durable with the next fsync;
// losing them only means the messages are sent again after a restart.
func (o *Outbox) appendTombstones(buf []byte) {
	if len(buf) == 0 {
		return
	}
	if _, _, err := o.append(buf); err != nil {
		o.log.Warn("outbox: tombstone not written; the message may be sent again after a restart", "err", err)
	}
}

func (o *Outbox) addEntry(f *segFile, e *entry) {
	e.file = f
	f.entries[e.seq] = e
	f.live += e.size
	o.entries[e.seq] = e
	o.liveBytes += e.size
	if e.group != "" {
		o.addToGroup(e)
	}
}

// sync makes every write up to gen durable; concurrent callers share
// one fsync round (group commit). The fsyncs run outside o.mu, on every
// file written since its last fsync (a file sealed meanwhile included).
func (o *Outbox) sync(gen uint64) error {
	o.syncMu.Lock()
	defer o.syncMu.Unlock()
	if o.syncedGen >= gen {
		return nil
	}
	o.mu.Lock()
	g := o.writeGen
	var dirty []*segFile
	for _, f := range o.files {
		if f.dirty {
			f.dirty = false
			f.pins++
			dirty = append(dirty, f)
		}
	}
	o.stats.Syncs++
	o.mu.Unlock()
	var err error
	for _, f := range dirty {
		if e := o.fsync(f.f); e != nil && err == nil {
			err = fmt.Errorf("outbox: fsync %s: %w (is the disk failing or full?)", f.f.Name(), e)
		}
	}
	o.mu.Lock()
	for _, f := range dirty {
		f.pins--
		f.dirty = f.dirty || err != nil
	}
	o.mu.Unlock()
	if err != nil {
		return err
	}
	o.syncedGen = g
	return nil
}

func (o *Outbox) closeFiles() {
	for _, f := range o.files {
		f.f.Close()
	}
}

// createFile creates the next segment file (and makes its name durable).
func (o *Outbox) createFile() (*segFile, error) {
	id := o.nextFile
	o.nextFile++
	name := filepath.Join(o.opts.Dir, fmt.Sprintf(filePrefix+"%016x.log", id))
	fh, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("outbox: create %s: %w (check data_dir's permissions and free space)", name, err)
	}
	if err := fsutil.SyncDir(o.opts.Dir); err != nil {
		fh.Close()
		return nil, err
	}
	return &segFile{id: id, f: fh, entries: map[uint64]*entry{}}, nil
}
