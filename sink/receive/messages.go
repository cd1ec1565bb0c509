package receive

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
)

// Manifest takes a manifest the robot shipped: episode_start (Closed
// false) fills an episode's robot fields once, episode_end (Closed true)
// replaces them once; a start after the end is ignored, the same
// manifest again is a no-op, another one ErrConflict. completed reports
// that this call made the episode complete.
func (r *Receiver) Manifest(robot string, m episode.Manifest) (completed bool, err error) {
	if m.Robot != robot {
		if err := episode.CheckID(robot, m.ID); err != nil {
			return false, fmt.Errorf("%w: %w", ErrRefused, err)
		}
		return false, fmt.Errorf("%w: manifest of robot %.140q sent by %.140q", ErrRefused, m.Robot, robot)
	}
	defer r.lockEpisode(m.ID)()
	return r.update(robot, m.ID, func(e *received) error {
		cur, next := robotFields(e.m), robotFields(m)
		switch {
		case bytes.Equal(cur, next):
			return nil
		case e.m.Closed:
			if !m.Closed {
				return nil // a start after the end: the end says more
			}
			return fmt.Errorf("%w: %s has another end manifest", ErrConflict, m.ID)
		case !m.Closed && !e.m.Start.IsZero():
			return fmt.Errorf("%w: %s has another start manifest", ErrConflict, m.ID)
		}
		held, complete, cost, arrived, clips := e.m.Held, e.m.Complete, e.m.Cost, e.m.EndArrived, e.m.Clips
		if m.Closed && arrived.IsZero() {
			arrived = time.Now().UTC()
		}
		e.m = m
		e.m.Format, e.m.ID, e.m.Held, e.m.Complete, e.m.Cost, e.m.EndArrived = episode.ManifestFormat, e.id, held, complete, cost, arrived
		e.m.Uploaded, e.m.Recovery, e.m.Clips = false, nil, clips
		return nil
	})
}

// robotFields is the part of a manifest the robot writes, encoded.
func robotFields(m episode.Manifest) []byte {
	m.Format, m.Held, m.Complete, m.Uploaded, m.Recovery, m.Cost, m.EndArrived = 0, nil, false, false, nil, nil, time.Time{}
	m.Clips = nil // announced apart (Clip)
	b, _ := json.Marshal(m)
	return b
}

// maxSegmentIndex bounds a segment index taken from the wire.
const maxSegmentIndex = 1 << 24

// Segment adds segment s (its Index is the robot's) to the episode's
// segments.rec, once per index. The file is put whole with the new
// record appended (episode.AppendRecord, the store's one write path),
// conditional on the version read, so receivers sharing the store never
// lose each other's records.
func (r *Receiver) Segment(robot, id string, s episode.Segment) (completed bool, err error) {
	if s.Index < 0 || s.Index >= maxSegmentIndex {
		return false, fmt.Errorf("%w: segment index %d out of range", ErrRefused, s.Index)
	}
	p, err := json.Marshal(s)
	if err != nil {
		return false, fmt.Errorf("%w: segment %d cannot be a record: %w", ErrRefused, s.Index, err)
	}
	defer r.lockEpisode(id)()
	return r.add(robot, id, func(e *received) error { return r.appendSegment(e, s.Index, p) })
}

// appendSegment adds record p of segment index to e's segments.rec,
// read first unless e holds it; a write another receiver beat is read
// again and retried.
func (r *Receiver) appendSegment(e *received, index int, p []byte) error {
	for range maxRaces {
		if !e.segsRead {
			if err := e.readSegments(r.blobs); err != nil {
				return err
			}
		}
		if old, ok := e.segs[index]; ok {
			if !bytes.Equal(old, p) {
				return fmt.Errorf("%w: %s has another segment %d", ErrConflict, e.id, index)
			}
			return nil
		}
		rec, err := episode.AppendRecord(bytes.Clone(e.segRec), int64(len(e.segRec)), p)
		if err != nil {
			return fmt.Errorf("%w: %s: %s: %w", ErrRefused, e.id, episode.SegmentsFile, err)
		}
		ver, err := r.blobs.Put(e.id+"/"+episode.SegmentsFile, rec, condOf(e.segVer))
		if errors.Is(err, blob.ErrPrecondition) {
			r.races.Add(1)
			e.segsRead = false
			continue
		}
		if err != nil {
			return err
		}
		e.segs[index] = p
		e.segRec, e.segVer = rec, ver
		return nil
	}
	return fmt.Errorf("episode: %s: lost %d races for %s to other writers; will retry", e.id, maxRaces, episode.SegmentsFile)
}

// condOf is the condition to replace a blob read at version v ("" when
// it was absent).
func condOf(v string) blob.Cond {
	if v == "" {
		return blob.Cond{IfAbsent: true}
	}
	return blob.Cond{IfVersion: v}
}

var (
	contactName = regexp.MustCompile(`^` + episode.SheetPrefix + `[0-9]{4,9}$`)
	labelName   = regexp.MustCompile(`^` + episode.LabelPrefix + `[A-Za-z0-9._-]{1,100}$`)
)

// Sheet writes a contact sheet (label false; name SheetName(index)) or
// a labeling sheet (name label-...) of camera: NAME.jpg, then NAME.json.
func (r *Receiver) Sheet(robot, id, camera, name string, label bool, jpeg, meta []byte) (completed bool, err error) {
	switch {
	case !label && contactName.MatchString(name):
	case label && labelName.MatchString(name) && !strings.HasSuffix(name, "."):
	default:
		return false, fmt.Errorf("%w: sheet name %.140q", ErrRefused, name)
	}
	kind := episode.SheetsDir
	if label {
		kind = episode.LabelsDir
	}
	dir := kind + "/" + episode.CameraDir(camera) + "/" + name
	defer r.lockEpisode(id)()
	return r.add(robot, id, func(e *received) error {
		if err := r.put(e, dir+".jpg", jpeg); err != nil {
			return err
		}
		return r.put(e, dir+".json", meta)
	})
}

// Snippet writes the state snippet of contact sheet index of camera.
func (r *Receiver) Snippet(robot, id, camera string, index int, body []byte) (completed bool, err error) {
	if index < 0 || index >= maxSegmentIndex {
		return false, fmt.Errorf("%w: snippet index %d out of range", ErrRefused, index)
	}
	rel := episode.SnippetsDir + "/" + episode.CameraDir(camera) + "/" + episode.SheetName(index) + episode.SnippetExt
	defer r.lockEpisode(id)()
	return r.add(robot, id, func(e *received) error { return r.put(e, rel, body) })
}

// put writes rel of e once: absent, it is written; present with the
// same content, nothing happens; with another content, ErrConflict.
// Either way e holds it after.
func (r *Receiver) put(e *received, rel string, b []byte) error {
	name := e.id + "/" + rel
	if _, held := e.files[rel]; !held {
		_, err := r.blobs.Put(name, b, blob.Cond{IfAbsent: true})
		if err == nil {
			e.files[rel] = int64(len(b))
			return nil
		}
		if !errors.Is(err, blob.ErrPrecondition) {
			return err
		}
	}
	same, err := sameBlob(r.blobs, name, b)
	switch {
	case err != nil:
		return err
	case !same:
		return fmt.Errorf("%w: %s", ErrConflict, name)
	}
	e.files[rel] = int64(len(b))
	return nil
}

// sameBlob reports whether name holds exactly b (reading at most len(b)+1
// bytes of it): the idempotence test of a write-once file.
func sameBlob(bl blob.Blobs, name string, b []byte) (bool, error) {
	old, _, err := bl.Get(name, int64(len(b))+1)
	if err != nil {
		if errors.Is(err, blob.ErrTooLarge) {
			return false, nil
		}
		return false, err
	}
	return bytes.Equal(old, b), nil
}
