package episode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Writer appends to the one open episode. It belongs to one goroutine.
type Writer struct {
	store       *Store
	dir         string
	m           Manifest
	segs, trans *os.File
	buf         []byte
	closed      bool
}

// ID of the episode.
func (w *Writer) ID() string { return w.m.ID }

// Dir of the episode.
func (w *Writer) Dir() string { return w.dir }

// Start is the episode's start (ROS time).
func (w *Writer) Start() time.Time { return w.m.Start }

// Manifest returns a copy of the current manifest.
func (w *Writer) Manifest() Manifest { return w.m }

func (w *Writer) openFiles() error {
	var err error
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if w.segs, err = os.OpenFile(filepath.Join(w.dir, segmentsName), flags, 0o644); err != nil {
		return fmt.Errorf("episode: %w", err)
	}
	if w.trans, err = os.OpenFile(filepath.Join(w.dir, transitionsName), flags, 0o644); err != nil {
		w.segs.Close()
		return fmt.Errorf("episode: %w", err)
	}
	return nil
}

func (w *Writer) closeFiles() {
	w.segs.Close()
	w.trans.Close()
}

func (w *Writer) writeManifest() error { return writeManifest(w.dir, w.m) }

// append writes one record with one write call, so a killed process
// leaves either the whole record or none of it in the page cache.
func (w *Writer) append(f *os.File, v any) error {
	if w.closed {
		return fmt.Errorf("episode: %s is closed", w.m.ID)
	}
	p, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("episode: encode record: %w", err)
	}
	if len(p) > MaxRecordBytes {
		return fmt.Errorf("episode: record of %d bytes is larger than %d (a label or detail is too long)", len(p), MaxRecordBytes)
	}
	w.buf = appendRecord(w.buf[:0], p)
	if _, err := f.Write(w.buf); err != nil {
		return fmt.Errorf("episode: append to %s: %w (disk full?)", f.Name(), err)
	}
	return nil
}

// Transition appends a raw transition; Seq is assigned here. It is
// written at once but fsynced only with the next segment or the close.
func (w *Writer) Transition(t Transition) error {
	t.Seq = w.m.Transitions
	if err := w.append(w.trans, t); err != nil {
		return err
	}
	w.m.Transitions++
	return nil
}

// Segment appends a closed segment (Index is assigned here) and makes it
// and every transition before it durable before returning.
func (w *Writer) Segment(s Segment) error {
	s.Index = w.m.Segments
	if err := w.append(w.segs, s); err != nil {
		return err
	}
	w.m.Segments++
	return w.sync()
}

func (w *Writer) sync() error {
	if err := w.trans.Sync(); err != nil {
		return fmt.Errorf("episode: fsync transitions: %w", err)
	}
	if err := w.segs.Sync(); err != nil {
		return fmt.Errorf("episode: fsync segments: %w", err)
	}
	return nil
}

// SetInstruction replaces the episode's instruction (manifest rewrite).
func (w *Writer) SetInstruction(s string) error {
	if w.closed || w.m.Instruction == s {
		return nil
	}
	w.m.Instruction = s
	return w.writeManifest()
}

// Close makes everything durable, writes the closed manifest and applies
// retention. outcome is one of the outcome constants, reason one of the
// End constants. Calling Close twice is a no-op.
func (w *Writer) Close(end time.Time, outcome, reason string) error {
	if w.closed {
		return nil
	}
	err := w.sync()
	w.closeFiles()
	w.closed = true
	w.m.End, w.m.Closed, w.m.Outcome, w.m.EndReason = end, true, outcome, reason
	if end.Before(w.m.Start) {
		w.m.End = w.m.Start
	}
	if merr := w.writeManifest(); err == nil {
		err = merr
	}
	if rerr := w.store.finished(w); err == nil {
		err = rerr
	}
	return err
}
