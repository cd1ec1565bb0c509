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
// order, files merged by hand): the files are merged by bag.Merge, which
// opens a file only once the merge reaches its first message's time, so
// a bag split into many files keeps few open at once (at most
// Options.MaxOpenFiles). It is for one goroutine; several may run on one
// Reader.
type Iterator struct {
	ctx   context.Context
	r     *Reader
	want  map[string]bool
	merge *bag.Merged
	open  []*fileStream // the files open now, in the order opened
	msg   bag.Message
	err   error
	skips []string // of the files closed so far
	done  bool
	zr    *zstd.Decoder
	buf   []byte
}

// fileStream is one open storage file as a bag.Stream. A message of a
// channel no topic list names has no Conn: the merge orders it, the
// Iterator passes over it.
type fileStream struct {
	s    storage
	it   storageIter
	conn []*bag.Connection // the file's topic index -> connection
	msg  bag.Message
}

func (f *fileStream) Next() bool {
	if !f.it.next() {
		return false
	}
	topic, t, data := f.it.message()
	var c *bag.Connection
	if topic >= 0 && topic < len(f.conn) {
		c = f.conn[topic]
	}
	f.msg = bag.Message{Conn: c, Time: time.Unix(0, t), Data: data}
	return true
}

func (f *fileStream) Message() bag.Message { return f.msg }
func (f *fileStream) Err() error           { return f.it.err() }

func (f *fileStream) Close() {
	f.it.close()
	f.s.close()
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
	inputs := make([]bag.Input, len(r.files))
	for i, f := range r.files {
		inputs[i] = bag.Input{Start: time.Unix(0, f.start), Open: func() (bag.Stream, error) { return it.openFile(i) }}
	}
	it.merge = bag.Merge(inputs, bag.MergeOptions{Closing: it.closing})
	return it
}

// Next advances to the next message; false at the end or on an error.
func (it *Iterator) Next() bool {
	for !it.done && it.merge.Next() {
		m := it.merge.Message()
		if m.Conn == nil {
			continue // a channel no topic list names: nobody asked for it
		}
		if it.r.meta != nil && it.r.meta.CompressionMode == "MESSAGE" {
			var ok bool
			if m.Data, ok = it.decompress(m, it.merge.Input()); !ok {
				return false
			}
		}
		it.msg = m
		return true
	}
	if err := it.merge.Err(); err != nil && !it.done {
		it.fail(err)
	}
	it.done = true
	return false
}

// openFile opens storage file i for the merge, within MaxOpenFiles.
func (it *Iterator) openFile(i int) (bag.Stream, error) {
	if n := len(it.open); n >= it.r.opts.MaxOpenFiles {
		return nil, fmt.Errorf("%s: %d storage files overlap in time at %d, more than the %d merged at once (Options.MaxOpenFiles)",
			it.r.paths[i], n+1, it.r.files[i].start, it.r.opts.MaxOpenFiles)
	}
	opts := it.r.opts
	opts.VerifyDataCRC = false // Open checked it
	s, err := openStorage(it.ctx, it.r.files[i].path, opts)
	if err != nil {
		return nil, err
	}
	f := &fileStream{s: s, it: s.messages(it.ctx, it.want)}
	for _, m := range s.topics() {
		f.conn = append(f.conn, it.r.byTopic[m.name])
	}
	it.open = append(it.open, f)
	return f, nil
}

// closing keeps what a file skipped as the merge closes it.
func (it *Iterator) closing(_ int, s bag.Stream) {
	f := s.(*fileStream)
	if len(it.skips) < maxSkips {
		it.skips = append(it.skips, f.it.skips()...)
	}
	it.open = slices.DeleteFunc(it.open, func(o *fileStream) bool { return o == f })
}

func (it *Iterator) fail(err error) {
	if cerr := it.ctx.Err(); cerr != nil {
		err = cerr // an interrupted query: the caller stopped it
	}
	it.err = err
	it.done = true
}

// maxSkips bounds the skipped messages an Iterator names.
const maxSkips = 1000

// Skipped names the messages passed over so far (each too large to
// load: over MaxMessageBytes), at most 1000 of them; the Iterator read
// on after each.
func (it *Iterator) Skipped() []string {
	out := slices.Clone(it.skips)
	for _, f := range it.open {
		out = append(out, f.it.skips()...)
	}
	return out[:min(len(out), maxSkips)]
}

// decompress undoes rosbag2's message compression (one zstd frame per
// message), capped at MaxMessageBytes.
func (it *Iterator) decompress(m bag.Message, file int) ([]byte, bool) {
	if it.zr == nil {
		zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(uint64(it.r.opts.MaxMessageBytes)))
		if err != nil {
			it.fail(err)
			return nil, false
		}
		it.zr = zr
	}
	out, err := it.zr.DecodeAll(m.Data, it.buf[:0])
	if err != nil {
		it.fail(fmt.Errorf("%s: message at %d compressed with zstd does not decompress: %w", it.r.paths[file], m.Time.UnixNano(), err))
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
	it.merge.Close()
	if it.zr != nil {
		it.zr.Close()
		it.zr = nil
	}
	it.done = true
}
