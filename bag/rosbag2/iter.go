package rosbag2

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/edged-robotics/edged/bag"
)

// Iterator walks a bag's messages in log-time order (ties: the file
// metadata.yaml lists first, then the file's own order). rosbag2 splits
// a bag by time, so its files normally follow each other, but their
// ranges may overlap (a split by size while messages arrive out of
// order, files merged by hand): the files are merged. A file is opened
// only once the merge reaches its first message's time, so a bag split
// into many files keeps few open at once (at most Options.MaxOpenFiles).
// It is for one goroutine; several may run on one Reader.
type Iterator struct {
	ctx    context.Context
	r      *Reader
	want   map[string]bool
	next   int     // the next file to open, in r.order
	active []*head // open files with a message at their head
	last   *head   // the file whose head was returned last: advanced by the next Next
	msg    bag.Message
	err    error
	skips  []string // of the files closed so far
	done   bool
	zr     *zstd.Decoder
	buf    []byte
}

// head is one open storage file and its current message.
type head struct {
	order int // in metadata.yaml
	s     storage
	it    storageIter
	conn  []*bag.Connection // the file's topic index -> connection
	topic int
	t     int64
	data  []byte
}

// Messages returns an Iterator over the given topics (all when none).
func (r *Reader) Messages(topics ...string) *Iterator {
	return r.MessagesContext(context.Background(), topics...)
}

// MessagesContext is Messages whose sqlite3 queries end when ctx does:
// the Iterator then stops with ctx's error.
func (r *Reader) MessagesContext(ctx context.Context, topics ...string) *Iterator {
	it := &Iterator{ctx: ctx, r: r}
	if len(topics) > 0 {
		it.want = map[string]bool{}
		for _, t := range topics {
			it.want[t] = true
		}
	}
	return it
}

// Next advances to the next message; false at the end or on an error.
func (it *Iterator) Next() bool {
	for !it.done {
		if it.last != nil {
			h := it.last
			it.last = nil
			if !it.advance(h) {
				return false
			}
		}
		if !it.openDue() {
			return false
		}
		h := it.earliest()
		if h == nil {
			it.done = true
			return false
		}
		it.last = h
		if h.topic < 0 || h.topic >= len(h.conn) || h.conn[h.topic] == nil {
			continue // a channel no topic list names: nobody asked for it
		}
		data := h.data
		if it.r.meta != nil && it.r.meta.CompressionMode == "MESSAGE" {
			var ok bool
			if data, ok = it.decompress(data, h); !ok {
				return false
			}
		}
		it.msg = bag.Message{Conn: h.conn[h.topic], Time: time.Unix(0, h.t), Data: data}
		return true
	}
	return false
}

// openDue opens every file whose first message may come before the
// earliest head (or the next file when none is open).
func (it *Iterator) openDue() bool {
	for it.next < len(it.r.order) {
		i := it.r.order[it.next]
		if e := it.earliest(); e != nil && it.r.files[i].start > e.t {
			return true
		}
		it.next++
		h, err := it.open(i)
		if err != nil {
			it.fail(err)
			return false
		}
		it.active = append(it.active, h)
		if !it.advance(h) {
			return false
		}
	}
	return true
}

// open opens storage file i for the merge, within MaxOpenFiles.
func (it *Iterator) open(i int) (*head, error) {
	if n := len(it.active); n >= it.r.opts.MaxOpenFiles {
		return nil, fmt.Errorf("%s: %d storage files overlap in time at %d, more than the %d merged at once (Options.MaxOpenFiles)",
			it.r.paths[i], n+1, it.r.files[i].start, it.r.opts.MaxOpenFiles)
	}
	opts := it.r.opts
	opts.VerifyDataCRC = false // Open checked it
	s, err := openStorage(it.ctx, it.r.files[i].path, opts)
	if err != nil {
		return nil, err
	}
	h := &head{order: i, s: s, it: s.messages(it.ctx, it.want)}
	for _, m := range s.topics() {
		h.conn = append(h.conn, it.r.byTopic[m.name])
	}
	return h, nil
}

// advance moves h to its next message, dropping it at its end; false
// on an error (then the Iterator is done).
func (it *Iterator) advance(h *head) bool {
	if h.it.next() {
		h.topic, h.t, h.data = h.it.message()
		return true
	}
	err := h.it.err()
	it.closeHead(h)
	for i, a := range it.active {
		if a == h {
			it.active = append(it.active[:i], it.active[i+1:]...)
			break
		}
	}
	if err != nil {
		it.fail(err)
		return false
	}
	return true
}

// earliest is the open file whose head comes first (ties: the file
// listed first), or nil.
func (it *Iterator) earliest() *head {
	var best *head
	for _, h := range it.active {
		if best == nil || h.t < best.t || h.t == best.t && h.order < best.order {
			best = h
		}
	}
	return best
}

func (it *Iterator) fail(err error) {
	if cerr := it.ctx.Err(); cerr != nil {
		err = cerr // an interrupted query: the caller stopped it
	}
	it.err = err
	it.done = true
}

// close closes h's file, keeping what it skipped.
func (it *Iterator) closeHead(h *head) {
	if len(it.skips) < maxSkips {
		it.skips = append(it.skips, h.it.skips()...)
	}
	h.it.close()
	h.s.close()
}

// maxSkips bounds the skipped messages an Iterator names.
const maxSkips = 1000

// Skipped names the messages passed over so far (each too large to
// load: over MaxMessageBytes), at most 1000 of them; the Iterator read
// on after each.
func (it *Iterator) Skipped() []string {
	out := slices.Clone(it.skips)
	for _, h := range it.active {
		out = append(out, h.it.skips()...)
	}
	return out[:min(len(out), maxSkips)]
}

// decompress undoes rosbag2's message compression (one zstd frame per
// message), capped at MaxMessageBytes.
func (it *Iterator) decompress(data []byte, h *head) ([]byte, bool) {
	if it.zr == nil {
		zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(uint64(it.r.opts.MaxMessageBytes)))
		if err != nil {
			it.fail(err)
			return nil, false
		}
		it.zr = zr
	}
	out, err := it.zr.DecodeAll(data, it.buf[:0])
	if err != nil {
		it.fail(fmt.Errorf("%s: message at %d compressed with zstd does not decompress: %w", it.r.paths[h.order], h.t, err))
		return nil, false
	}
	it.buf = out
	return out, true
}

// Message returns the current message; Data is valid until Next.
func (it *Iterator) Message() bag.Message { return it.msg }

// Err returns what stopped the Iterator early, naming the bag.
func (it *Iterator) Err() error {
	if it.err != nil {
		return fmt.Errorf("rosbag2 %s: %w", it.r.info.Path, it.err)
	}
	return nil
}

// Close releases the Iterator.
func (it *Iterator) Close() {
	for _, h := range it.active {
		it.closeHead(h)
	}
	it.active, it.last = nil, nil
	if it.zr != nil {
		it.zr.Close()
		it.zr = nil
	}
	it.next = len(it.r.order)
	it.done = true
}
