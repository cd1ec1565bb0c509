package clip

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/episode"
)

// content is everything one clip holds, listed before anything is
// written (frames by metadata only: their bytes are copied one by one).
type content struct {
	cams   []listed
	joints []capture.JointSample
	trans  []episode.Transition
	segs   []episode.Segment
	meta   map[string]string // every channel's metadata
}

// item is one message to write, in log-time order.
type item struct {
	t    time.Time
	kind uint8 // itemFrame, itemJoints, itemTransition, itemSegment
	a, b int   // frame: camera, frame; others: index
}

const (
	itemFrame uint8 = iota
	itemJoints
	itemTransition
	itemSegment
)

// order lists every message of c by time (ties: cameras first, as
// listed), so that chunks do not overlap and readers seek.
func (c *content) order() []item {
	var items []item
	for ci, l := range c.cams {
		for fi, m := range l.frames {
			items = append(items, item{m.Stamp, itemFrame, ci, fi})
		}
	}
	for i, s := range c.joints {
		items = append(items, item{t: s.Stamp, kind: itemJoints, a: i})
	}
	for i, t := range c.trans {
		items = append(items, item{t: t.Stamp, kind: itemTransition, a: i})
	}
	for i, s := range c.segs {
		items = append(items, item{t: s.Start, kind: itemSegment, a: i})
	}
	slices.SortStableFunc(items, func(x, y item) int { return cmp.Compare(x.t.UnixNano(), y.t.UnixNano()) })
	return items
}

// written is what writing a clip gave.
type written struct {
	frames, lost, bad int
	bytes             int64
}

// writeMCAP writes c as one MCAP file to out: zstd chunks with their
// message indexes, the summary, and a Metadata record saying what the
// clip holds and lost.
func writeMCAP(out io.Writer, d *dialect, c *content, enc *frameEncoder) (written, error) {
	bw := bufio.NewWriterSize(out, 1<<20)
	w, err := mcap.NewWriter(bw, mcap.WriterOptions{Compression: mcap.CompressionZstd})
	if err != nil {
		return written{}, err
	}
	var jointTopics []string
	for _, s := range c.joints {
		if !slices.Contains(jointTopics, s.Topic) {
			jointTopics = append(jointTopics, s.Topic)
		}
	}
	ch, err := addChannels(w, d, c.cams, jointTopics, c.meta)
	if err != nil {
		return written{}, err
	}
	res, err := writeItems(w, d, c, ch, enc)
	if err != nil {
		return res, err
	}
	md := withMeta(c.meta, "frames", strconv.Itoa(res.frames))
	md["lost_frames"], md["bad_frames"] = strconv.Itoa(res.lost), strconv.Itoa(res.bad)
	if err := w.WriteMetadata(MetadataName, md); err != nil {
		return res, err
	}
	if err := w.Close(); err != nil {
		return res, err
	}
	res.bytes = w.Size()
	return res, bw.Flush()
}

// writeItems writes every message in time order. A frame the ring
// overwrote since it was listed is lost (counted); one that does not
// encode is bad (counted); neither stops the clip.
func writeItems(w *mcap.Writer, d *dialect, c *content, ch channels, enc *frameEncoder) (written, error) {
	var res written
	var buf, msg []byte
	seqs := map[uint16]uint32{}
	next := func(id uint16) uint32 { seqs[id]++; return seqs[id] }
	for _, it := range c.order() {
		var err error
		switch it.kind {
		case itemFrame:
			m := c.cams[it.a].frames[it.b]
			var ok bool
			if buf, ok = c.cams[it.a].cam.Ring.Copy(m.Seq, buf); !ok {
				res.lost++
				continue
			}
			format, data, ferr := enc.image(m, buf)
			if ferr != nil {
				res.bad++
				continue
			}
			id := ch.cams[it.a]
			seq := next(id)
			msg = d.image(msg[:0], seq, m.Stamp, m.FrameID, format, data)
			err = w.WriteMessage(id, seq, nanos(m.Stamp), nanos(m.Stamp), msg)
			res.frames++
			// let capture's goroutines have this P between frames: the
			// kernel may leave this lower-priority thread waiting while
			// it holds one (doc.go, Priority)
			runtime.Gosched()
		case itemJoints:
			s := &c.joints[it.a]
			id := ch.joints[s.Topic]
			seq := next(id)
			msg = d.joints(msg[:0], seq, s)
			err = w.WriteMessage(id, seq, nanos(s.Stamp), nanos(s.Stamp), msg)
		case itemTransition:
			err = jsonMessage(w, ch.transitions, next(ch.transitions), it.t, c.trans[it.a])
		case itemSegment:
			err = jsonMessage(w, ch.segments, next(ch.segments), it.t, c.segs[it.a])
		}
		if err != nil {
			return res, fmt.Errorf("clip: writing a message: %w", err)
		}
	}
	return res, nil
}
