package bag

import (
	"fmt"
	"time"
)

// Message is one message record.
type Message struct {
	Conn *Connection
	// Time is the record time: when the recorder received the message
	// (rosbag play publishes it at that time, and --clock publishes it
	// as /clock).
	Time time.Time
	// Data is the serialized message. It is borrowed from the Iterator:
	// valid until the next call to Next or Close, and must not be
	// modified. Copy it to keep it.
	Data []byte
}

// Iterator walks messages in time order (by record time, then in the
// bag's connection order, then by position, as rosbag does). It holds
// the chunks it needs decompressed and reuses their buffers, so reading
// an uncompressed bag allocates nothing per message. Not safe for
// concurrent use; several Iterators on one Reader are.
//
//	it := r.Messages("/camera/image")
//	defer it.Close()
//	for it.Next() {
//		m := it.Message()
//		...
//	}
//	if err := it.Err(); err != nil { ... }
type Iterator struct {
	r     *Reader
	want  []bool // by connection index; nil means all
	next  int    // index into r.entries
	done  int    // messages returned
	total int    // messages this Iterator will return
	left  []int32
	// release is a chunk whose last message was returned; its buffer is
	// reused only at the next Next, since that message aliases it.
	release int32
	cache   []cachedChunk
	bytes   int // uncompressed bytes in cache
	tick    uint64
	free    [][]byte
	dec     decoder
	rec     memRecord
	msg     Message
	err     error
	closed  bool
}

type cachedChunk struct {
	chunk int32
	buf   []byte
	used  uint64
}

// maxFree bounds the spare chunk buffers an Iterator keeps.
const maxFree = 4

// Messages returns an Iterator over the messages of the given topics,
// or of every topic when none are given. Topics not in the bag match
// nothing.
func (r *Reader) Messages(topics ...string) *Iterator {
	it := &Iterator{r: r, left: make([]int32, len(r.chunks)), release: -1}
	if len(topics) > 0 {
		it.want = make([]bool, len(r.conns))
		for i, c := range r.conns {
			for _, t := range topics {
				if c.Topic == t {
					it.want[i] = true
				}
			}
		}
	}
	for _, e := range r.entries {
		if it.want == nil || it.want[e.conn] {
			it.left[e.chunk]++
			it.total++
		}
	}
	return it
}

// Next advances to the next message; false at the end or on an error
// (see Err).
func (it *Iterator) Next() bool {
	if it.err != nil || it.closed {
		return false
	}
	if it.release >= 0 {
		it.drop(it.release)
		it.release = -1
	}
	r := it.r
	for it.next < len(r.entries) {
		e := &r.entries[it.next]
		it.next++
		if it.want != nil && !it.want[e.conn] {
			continue
		}
		if err := it.read(e); err != nil {
			it.err = err
			return false
		}
		it.done++
		return true
	}
	return false
}

func (it *Iterator) read(e *entry) error {
	r := it.r
	buf, err := it.chunk(e.chunk)
	if err != nil {
		return err
	}
	if it.left[e.chunk]--; it.left[e.chunk] <= 0 {
		it.release = e.chunk
	}
	c := &r.chunks[e.chunk]
	at := func(err error) error {
		if c.virtual {
			return r.corrupt(c.pos, "%w", err)
		}
		return r.corruptIn(c.pos, int64(e.off), err)
	}
	if err := parseRecordAt(buf, int(e.off), r.opts.MaxHeaderBytes, &it.rec); err != nil {
		return at(err)
	}
	conn := r.conns[e.conn]
	switch h := &it.rec.h; {
	case h.op != opMsgData:
		return at(fmt.Errorf("the index points at a %s record, not a message", opName(h.op)))
	case !h.has(hasConn | hasTime):
		return at(fmt.Errorf("message record without conn and time"))
	case h.conn != conn.ID:
		return at(fmt.Errorf("message on connection %d, the index says %d", h.conn, conn.ID))
	}
	it.msg = Message{Conn: conn, Time: it.rec.h.time.time(), Data: it.rec.data}
	return nil
}

// Message returns the current message (after Next returned true).
func (it *Iterator) Message() Message { return it.msg }

// Err returns the error that stopped the iteration, if any: a
// CorruptError naming the offset, or an I/O error.
func (it *Iterator) Err() error { return it.err }

// Progress reports how many messages were returned of how many this
// Iterator will return in all (for a progress bar).
func (it *Iterator) Progress() (done, total int) { return it.done, it.total }

// Close gives the Iterator's buffers back to the Reader for the next
// Iterator; Message data is invalid after. Safe to call twice.
func (it *Iterator) Close() {
	if it.closed {
		return
	}
	it.closed = true
	for _, c := range it.cache {
		it.free = append(it.free, c.buf[:0])
	}
	for _, b := range it.free {
		it.r.spare.Put(&b)
	}
	it.cache, it.free, it.msg, it.dec = nil, nil, Message{}, decoder{}
}

// chunk returns chunk ci's uncompressed data, loading it if needed.
func (it *Iterator) chunk(ci int32) ([]byte, error) {
	it.tick++
	for i := range it.cache {
		if it.cache[i].chunk == ci {
			it.cache[i].used = it.tick
			return it.cache[i].buf, nil
		}
	}
	c := &it.r.chunks[ci]
	for len(it.cache) > 0 && it.bytes+int(c.size) > it.r.opts.MaxCacheBytes {
		it.evictOldest()
	}
	var dst []byte
	if n := len(it.free); n > 0 {
		dst, it.free = it.free[n-1], it.free[:n-1]
	} else if b, ok := it.r.spare.Get().(*[]byte); ok {
		dst = *b
	}
	buf, err := it.r.loadChunk(c, dst, &it.dec)
	if err != nil {
		return nil, err
	}
	it.cache = append(it.cache, cachedChunk{chunk: ci, buf: buf, used: it.tick})
	it.bytes += len(buf)
	return buf, nil
}

func (it *Iterator) evictOldest() {
	old := 0
	for i := range it.cache {
		if it.cache[i].used < it.cache[old].used {
			old = i
		}
	}
	it.drop(it.cache[old].chunk)
}

// drop removes chunk ci from the cache and keeps its buffer for reuse.
func (it *Iterator) drop(ci int32) {
	for i := range it.cache {
		if it.cache[i].chunk != ci {
			continue
		}
		buf := it.cache[i].buf
		it.bytes -= len(buf)
		it.cache = append(it.cache[:i], it.cache[i+1:]...)
		if len(it.free) < maxFree {
			it.free = append(it.free, buf[:0])
		}
		return
	}
}

// ForEach calls fn for every message of topics (all when none), in
// order, until fn returns an error. The Message's Data is valid only
// during the call.
func (r *Reader) ForEach(fn func(Message) error, topics ...string) error {
	it := r.Messages(topics...)
	defer it.Close()
	for it.Next() {
		if err := fn(it.Message()); err != nil {
			return err
		}
	}
	return it.Err()
}
