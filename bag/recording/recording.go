// Package recording opens what edged replays, whatever its format, and
// merges several recordings into one log-time order (bag.Merge).
//
// Open dispatches on the path: a directory (rosbag2's metadata.yaml) or
// an .mcap or .db3 file (or those with .zstd) is a rosbag2 bag, read by
// bag/rosbag2 with its MCAP data section CRC checked; anything else is a
// ROS1 .bag read by bag/. An edged incident clip (an .mcap with edged's
// transitions channel) is read as rosbag2 reads an .mcap, its ROS1
// cameras and joints as they are, and its string FSM sources rebuilt
// from its transitions (clip.go). A path that is neither a directory nor a
// regular file is refused (a FIFO would block the open). Every format
// gives bag/'s connections, info and messages, so a replay is one loop
// for all; each message's Publisher.Encoding tells how to decode it.
//
// Merge reads the given recordings' messages in one log-time order
// (ties: the recording given first). Damage is counted, not fatal: a
// recording whose messages end on an error is reported and dropped, the
// others go on; what a rosbag2 bag passed over (a message too large to
// load) is reported at Close. A context given to Open ends a rosbag2
// bag's sqlite3 queries, so a stopped replay returns at once.
package recording

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/edged-robotics/edged/bag"
	"github.com/edged-robotics/edged/bag/rosbag2"
)

// Recording is one opened recording: a ROS1 bag or a rosbag2 bag.
type Recording interface {
	Info() bag.Info
	Connections() []*bag.Connection
	Messages(topics ...string) bag.Stream
	// ROSVersion is the ROS version of the recording's format: 1 or 2.
	ROSVersion() int
	Close() error
}

type ros1Bag struct{ *bag.Reader }

func (b ros1Bag) Messages(topics ...string) bag.Stream { return b.Reader.Messages(topics...) }
func (ros1Bag) ROSVersion() int                        { return 1 }

// ros2Bag is a rosbag2 bag with the context that ends its sqlite3
// queries.
type ros2Bag struct {
	*rosbag2.Reader
	ctx context.Context
}

func (b ros2Bag) Messages(topics ...string) bag.Stream {
	return b.Reader.MessagesContext(b.ctx, topics...)
}
func (ros2Bag) ROSVersion() int { return 2 }

// Open opens the recording at path (see the package doc).
func Open(ctx context.Context, path string) (Recording, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("bag %s: %w", path, err)
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("bag %s: not a regular file or a directory (%s)", path, st.Mode().Type())
	}
	if st.IsDir() || rosbag2.IsBag(path) {
		// a replay reads the whole bag: its MCAP data section CRC is
		// checked too (one more sequential read), so damage anywhere
		// is reported
		r, err := rosbag2.OpenContext(ctx, path, rosbag2.Options{VerifyDataCRC: true})
		if err != nil {
			return nil, err
		}
		rec := ros2Bag{r, ctx}
		if st.IsDir() || !isClip(rec) {
			return rec, nil
		}
		c, err := openClip(rec)
		if err != nil {
			rec.Close()
			return nil, err
		}
		return c, nil
	}
	r, err := bag.Open(path)
	if err != nil {
		return nil, err
	}
	return ros1Bag{r}, nil
}

// OpenAll opens every path, or none: on an error it closes those it
// opened.
func OpenAll(ctx context.Context, paths []string) ([]Recording, error) {
	if len(paths) == 0 {
		return nil, errors.New("no bag given")
	}
	var recs []Recording
	for _, p := range paths {
		r, err := Open(ctx, p)
		if err != nil {
			CloseAll(recs)
			return nil, err
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// CloseAll closes every recording.
func CloseAll(recs []Recording) {
	for _, r := range recs {
		r.Close()
	}
}

// Problems lists what Open found damaged in each recording
// (bag.Info.Problems: a missing or broken index, damaged or cut chunks),
// naming the bag.
func Problems(recs []Recording) []string {
	var out []string
	for _, r := range recs {
		for _, p := range r.Info().Problems {
			out = append(out, fmt.Sprintf("bag %s: %s", r.Info().Path, p))
		}
	}
	return out
}

// Merged is the recordings' messages in one log-time order.
type Merged struct {
	*bag.Merged
	paths   []string
	skipped [][]string // by recording, reported at Close
	damaged func(error)
}

// Merge merges the recordings' messages of the given topics (all when
// none). Each problem met is handed to damaged, naming its bag: a
// recording that ends on an error (the rest of it is skipped, the
// others go on), and at Close what a recording passed over.
func Merge(recs []Recording, topics []string, damaged func(error)) *Merged {
	m := &Merged{damaged: damaged, skipped: make([][]string, len(recs))}
	inputs := make([]bag.Input, len(recs))
	for i, r := range recs {
		m.paths = append(m.paths, r.Info().Path)
		inputs[i] = bag.Input{Open: func() (bag.Stream, error) { return r.Messages(topics...), nil }}
	}
	m.Merged = bag.Merge(inputs, bag.MergeOptions{Failed: m.failed, Closing: m.closing})
	return m
}

func (m *Merged) failed(i int, err error) bool {
	if !strings.Contains(err.Error(), m.paths[i]) {
		err = fmt.Errorf("bag %s: %w", m.paths[i], err)
	}
	m.damaged(fmt.Errorf("%w; the rest of this bag is skipped", err))
	return true
}

func (m *Merged) closing(i int, s bag.Stream) {
	if sk, ok := s.(interface{ Skipped() []string }); ok {
		m.skipped[i] = sk.Skipped()
	}
}

// Close closes the merge and reports what each recording passed over.
func (m *Merged) Close() {
	m.Merged.Close()
	for i, ps := range m.skipped {
		for _, p := range ps {
			m.damaged(fmt.Errorf("bag %s: %s", m.paths[i], p))
		}
	}
	m.skipped = nil
}
