package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/edged-robotics/edged/episode"
)

// ErrPending wraps the error of a Segment that could not be written: the
// segment is kept in memory and written, in order, by Retry or Close.
var ErrPending = errors.New("segment kept in memory until the store can write again")

// MaxPendingSegments bounds the closed segments a Writer keeps in memory
// while the store cannot write; beyond it the oldest is dropped and
// counted (Store.Stats().SegmentsLost).
const MaxPendingSegments = 4096

// Writer appends to the one open episode. It belongs to one goroutine.
type Writer struct {
	store       *Store
	dir         string
	m           episode.Manifest
	segs, trans *os.File
	segsSize    int64 // bytes of whole records in segs (a failed append is cut back to it)
	transSize   int64
	buf         []byte
	pending     []episode.Segment // closed segments not yet written, oldest first
	closed      bool
}

// ID of the episode.
func (w *Writer) ID() string { return w.m.ID }

// Dir of the episode.
func (w *Writer) Dir() string { return w.dir }

// Start is the episode's start (ROS time).
func (w *Writer) Start() time.Time { return w.m.Start }

// Manifest returns a copy of the current manifest.
func (w *Writer) Manifest() episode.Manifest { return w.m }

// Pending is the number of closed segments kept in memory.
func (w *Writer) Pending() int { return len(w.pending) }

// NextIndex is the index the next Segment gets.
func (w *Writer) NextIndex() int { return w.m.Segments + len(w.pending) }

func (w *Writer) openFiles() error {
	var err error
	if w.segs, w.segsSize, err = openRecordFile(filepath.Join(w.dir, episode.SegmentsFile)); err != nil {
		return fmt.Errorf("episode: %w", err)
	}
	if w.trans, w.transSize, err = openRecordFile(filepath.Join(w.dir, episode.TransitionsFile)); err != nil {
		w.segs.Close()
		return fmt.Errorf("episode: %w", err)
	}
	return nil
}

// openRecordFile opens a record file for appending and returns its
// size. A new one stays empty until its first record, which
// episode.AppendRecord gives the header; an existing one, with or
// without a header, is appended to as it is (the records are the same).
func openRecordFile(path string) (*os.File, int64, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, 0, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, st.Size(), nil
}

func (w *Writer) closeFiles() {
	w.segs.Close()
	w.trans.Close()
}

func (w *Writer) writeManifest() error {
	err := w.store.fault(OpManifest, w.dir)
	if err == nil {
		err = writeManifest(w.dir, w.m)
	}
	w.store.note(OpManifest, err)
	return err
}

// append writes one record (episode.AppendRecord: with the file's
// header when it is new) with one write call, so a killed process
// leaves either the whole record or none of it in the page cache. A
// failed write (a full disk writes part of it) is cut back to *size, so
// that the records after it stay readable.
func (w *Writer) append(f *os.File, size *int64, v any) error {
	if w.closed {
		return fmt.Errorf("episode: %s is closed", w.m.ID)
	}
	p, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("episode: encode record: %w", err)
	}
	if w.buf, err = episode.AppendRecord(w.buf[:0], *size, p); err != nil {
		return fmt.Errorf("%w (%s)", err, f.Name())
	}
	err = w.store.fault(OpAppend, f.Name())
	if err == nil {
		_, err = f.Write(w.buf)
	}
	if err != nil {
		_ = f.Truncate(*size)
		err = fmt.Errorf("episode: append to %s: %w (disk full? free space in data_dir)", f.Name(), err)
		w.store.note(OpAppend, err)
		return err
	}
	*size += int64(len(w.buf))
	w.store.note(OpAppend, nil)
	return nil
}

// Transition appends a raw transition; Seq is assigned here. It is
// written at once but fsynced only with the next segment or the close. A
// transition that cannot be written is dropped (the error says so).
func (w *Writer) Transition(t episode.Transition) error {
	t.Seq = w.m.Transitions
	if err := w.append(w.trans, &w.transSize, t); err != nil {
		return err
	}
	w.m.Transitions++
	return nil
}

// Segment appends a closed segment (Index is assigned here, NextIndex)
// and makes it and every transition before it durable before returning.
// When the store cannot write (or older segments still wait), the
// segment is kept in memory and the error wraps ErrPending: Retry or
// Close writes it once the store can.
func (w *Writer) Segment(s episode.Segment) error {
	if w.closed {
		return fmt.Errorf("episode: %s is closed", w.m.ID)
	}
	s.Index = w.NextIndex()
	if len(w.pending) == 0 {
		err := w.writeSegment(s)
		if err == nil {
			return nil
		}
		w.keep(s)
		return fmt.Errorf("%w: %w", ErrPending, err)
	}
	w.keep(s)
	return fmt.Errorf("episode: %w (%d waiting)", ErrPending, len(w.pending))
}

func (w *Writer) keep(s episode.Segment) {
	if len(w.pending) == MaxPendingSegments {
		w.pending = w.pending[1:]
		w.store.lostSegments(1)
	}
	w.pending = append(w.pending, s)
}

// writeSegment appends s and fsyncs; on failure nothing of s stays.
func (w *Writer) writeSegment(s episode.Segment) error {
	before := w.segsSize
	if err := w.append(w.segs, &w.segsSize, s); err != nil {
		return err
	}
	if err := w.sync(); err != nil {
		_ = w.segs.Truncate(before)
		w.segsSize = before
		return err
	}
	w.m.Segments++
	return nil
}

// Retry writes the segments kept in memory, oldest first, and returns
// those now durable; err is the failure that stopped it.
func (w *Writer) Retry() (written []episode.Segment, err error) {
	for len(w.pending) > 0 {
		s := w.pending[0]
		s.Index = w.m.Segments
		if err := w.writeSegment(s); err != nil {
			return written, err
		}
		w.pending = w.pending[1:]
		written = append(written, s)
	}
	w.pending = nil
	return written, nil
}

func (w *Writer) sync() error {
	err := w.store.fault(OpSync, w.dir)
	if err == nil {
		if err = w.trans.Sync(); err != nil {
			err = fmt.Errorf("episode: fsync transitions: %w", err)
		}
	}
	if err == nil {
		if err = w.segs.Sync(); err != nil {
			err = fmt.Errorf("episode: fsync segments: %w", err)
		}
	}
	w.store.note(OpSync, err)
	return err
}

// SetInstruction replaces the episode's instruction (manifest rewrite;
// when that fails the next manifest write carries it).
func (w *Writer) SetInstruction(s string) error {
	if w.closed || w.m.Instruction == s {
		return nil
	}
	w.m.Instruction = s
	return w.writeManifest()
}

// Close writes the segments kept in memory, makes everything durable,
// writes the closed manifest and applies retention. outcome is one of
// the outcome constants, reason one of the End constants. When a write
// fails the episode stays open and Close may be called again (the store
// keeps it as its open episode until then). Calling Close after it
// succeeded is a no-op.
func (w *Writer) Close(end time.Time, outcome, reason string) error {
	if w.closed {
		return nil
	}
	if _, err := w.Retry(); err != nil {
		return err
	}
	if err := w.sync(); err != nil {
		return err
	}
	open := w.m
	w.m.End, w.m.Closed, w.m.Outcome, w.m.EndReason = end, true, outcome, reason
	if end.Before(w.m.Start) {
		w.m.End = w.m.Start
	}
	if err := w.writeManifest(); err != nil {
		w.m = open
		return err
	}
	w.closeFiles()
	w.closed = true
	return w.store.finished(w)
}

// Abandon gives up an episode that cannot be closed (edged stops while
// the store cannot write): the files are closed as a crash would leave
// them, the segments kept in memory are lost (counted), and the next Open
// recovers the episode as interrupted.
func (w *Writer) Abandon() {
	if w.closed {
		return
	}
	w.store.lostSegments(len(w.pending))
	w.pending = nil
	w.closeFiles()
	w.closed = true
	w.store.mu.Lock()
	if w.store.active == w {
		w.store.active = nil
	}
	w.store.mu.Unlock()
}
