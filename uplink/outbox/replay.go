package outbox

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// replay reads every file in order and rebuilds the index.
func (o *Outbox) replay() error {
	var names []string
	for _, prefix := range []string{oldFilePrefix, filePrefix} {
		n, err := filepath.Glob(filepath.Join(o.opts.Dir, prefix+"*.log"))
		if err != nil {
			return fmt.Errorf("outbox: %w", err)
		}
		names = append(names, n...)
	}
	type named struct {
		id   uint64
		name string
	}
	var files []named
	for _, n := range names {
		base := strings.TrimPrefix(strings.TrimPrefix(filepath.Base(n), oldFilePrefix), filePrefix)
		id, err := strconv.ParseUint(strings.TrimSuffix(base, ".log"), 16, 64)
		if err != nil {
			continue // not ours
		}
		files = append(files, named{id, n})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].id < files[j].id })
	for i, nf := range files {
		if err := o.replayFile(nf.id, nf.name, i == len(files)-1); err != nil {
			return err
		}
		o.nextFile = nf.id + 1
	}
	now := o.opts.Now()
	for _, e := range o.entries {
		e.queued = true // on disk before this run: durable
		if e.held {
			e.held = false // counted by markHeld
			o.markHeld(e, now)
			continue
		}
		e.inQ = true
		o.queues[e.prio] = append(o.queues[e.prio], e)
	}
	for p := range o.queues {
		slices.SortFunc(o.queues[p], func(a, b *entry) int { return cmp.Compare(a.seq, b.seq) })
		slices.SortFunc(o.held[p], func(a, b *entry) int { return cmp.Compare(a.seq, b.seq) })
	}
	return nil
}

func (o *Outbox) replayFile(id uint64, name string, last bool) error {
	fh, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return fmt.Errorf("outbox: open %s: %w", name, err)
	}
	b, err := os.ReadFile(name)
	if err != nil {
		fh.Close()
		return fmt.Errorf("outbox: read %s: %w", name, err)
	}
	f := &segFile{id: id, f: fh, size: int64(len(b)), entries: map[uint64]*entry{}, sealed: true}
	o.files = append(o.files, f)
	o.stats.DiskBytes += f.size
	for off := 0; off < len(b); {
		r, ok := parseRecord(b[off:], o.opts.MaxRecord)
		if ok {
			o.apply(f, r, int64(off))
			off += r.size
			continue
		}
		next := resync(b, off, o.opts.MaxRecord)
		if next < 0 && last {
			// A crash mid-append: cut the torn tail off.
			if err := fh.Truncate(int64(off)); err != nil {
				return fmt.Errorf("outbox: truncate %s: %w", name, err)
			}
			if err := fh.Sync(); err != nil {
				return fmt.Errorf("outbox: fsync %s: %w", name, err)
			}
			o.stats.TornBytes += int64(len(b) - off)
			o.stats.DiskBytes -= int64(len(b) - off)
			f.size = int64(off)
			o.recovered = append(o.recovered, fmt.Sprintf("%s: cut a torn tail of %d bytes at offset %d", filepath.Base(name), len(b)-off, off))
			break
		}
		if next < 0 {
			next = len(b)
		}
		o.quarantine(f.id, int64(off), b[off:next])
		o.stats.Quarantined++
		o.recovered = append(o.recovered, fmt.Sprintf("%s: quarantined %d corrupt bytes at offset %d", filepath.Base(name), next-off, off))
		off = next
	}
	return nil
}

func (o *Outbox) apply(f *segFile, r record, off int64) {
	if r.seq >= o.nextSeq {
		o.nextSeq = r.seq + 1
	}
	old := o.entries[r.seq]
	if old != nil && !isPut(r.typ) && old.file != f {
		f.tombs = append(f.tombs, tombRef{seq: r.seq, typ: r.typ, prio: r.prio, target: old.file})
	}
	if r.typ == recAck && old != nil && old.group != "" {
		// Acknowledged by the broker: a group's message is kept until
		// its group is Done. (Counted as held once the replay is over.)
		old.held = true
		return
	}
	if old != nil {
		// A later copy (compaction) or a tombstone replaces it. (Held
		// state is counted after the replay: nothing is counted yet.)
		old.held = false
		o.unindex(old)
	}
	if isPut(r.typ) {
		// A group's entry is indexed not held; the replay's end counts it
		// held (markHeld) when a copy or a tombstone said so.
		o.addEntry(f, &entry{seq: r.seq, prio: r.prio, off: off, size: int64(r.size), added: o.opts.Now(),
			group: r.group, name: r.name})
		if r.typ == recHeld {
			o.entries[r.seq].held = true
		}
	}
}

// quarantine keeps a copy of corrupt bytes for a human to look at. It
// does file I/O: never call it with o.mu held.
func (o *Outbox) quarantine(fileID uint64, off int64, b []byte) {
	dir := filepath.Join(o.opts.Dir, "quarantine")
	name := filepath.Join(dir, fmt.Sprintf("seg-%016x-%d.bin", fileID, off))
	if _, err := os.Stat(name); err == nil {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err == nil {
		err = os.WriteFile(name, b, 0o644)
		if err == nil {
			return
		}
	}
	o.log.Warn("outbox: cannot keep quarantined bytes", "file", name)
}
