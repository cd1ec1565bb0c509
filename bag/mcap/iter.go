package mcap

import "fmt"

// Message is one message. Data is borrowed from the Iterator: valid
// until the next call to Next (or Close); do not modify it.
type Message struct {
	Channel     *Channel
	Sequence    uint32
	LogTime     uint64 // ns
	PublishTime uint64 // ns
	Data        []byte
}

// Iterator walks a file's messages in log-time order (ties: file
// order). It is for one goroutine; several may run on one Reader.
type Iterator struct {
	r      *Reader
	ld     loader
	next   int       // the next block to load
	active []*loaded // loaded blocks with messages still to come
	cached int64
	chans  map[uint16]*Channel
	want   map[string]bool // nil: every topic
	msg    Message
	err    error
	done   bool
}

// Messages returns an Iterator over the messages of the given topics
// (all when none are given).
func (r *Reader) Messages(topics ...string) *Iterator {
	it := &Iterator{r: r, chans: make(map[uint16]*Channel, len(r.channels))}
	for id, c := range r.channels {
		it.chans[id] = c
	}
	if len(topics) > 0 {
		it.want = map[string]bool{}
		for _, t := range topics {
			it.want[t] = true
		}
	}
	return it
}

// Next advances to the next message; false at the end or on an error
// (Err). Blocks are loaded while they may hold a message earlier than
// the earliest one loaded, so overlapping chunks merge correctly.
func (it *Iterator) Next() bool {
	for !it.done {
		if !it.loadDue() {
			return false
		}
		best := it.earliest()
		if best < 0 {
			it.done = true
			return false
		}
		c := it.active[best]
		e := c.entries[c.pos]
		c.pos++
		if c.pos == len(c.entries) {
			it.retire(best)
		}
		ch := it.chans[e.channel]
		if ch == nil {
			it.fail(corrupt(c.blk.offset, "message on channel %d, which no channel record defines", e.channel))
			return false
		}
		if it.want != nil && !it.want[ch.Topic] {
			continue
		}
		it.msg = Message{Channel: ch, Sequence: e.seq, LogTime: e.t, PublishTime: e.pub, Data: c.data[e.lo:e.hi:e.hi]}
		return true
	}
	return false
}

// loadDue loads every block that starts no later than the earliest
// loaded message (or the next block when none is loaded).
func (it *Iterator) loadDue() bool {
	for it.next < len(it.r.blocks) {
		b := it.r.blocks[it.next]
		if best := it.earliest(); best >= 0 {
			c := it.active[best]
			if b.start > c.entries[c.pos].t {
				return true
			}
		}
		c, err := it.ld.load(it.r, b)
		if err != nil {
			it.fail(err)
			return false
		}
		c.order = it.next
		it.next++
		it.adopt(c)
		if len(c.entries) == 0 {
			it.ld.recycle(c)
			continue
		}
		it.active = append(it.active, c)
		it.cached += c.bytes()
		if it.cached > it.r.opts.MaxCacheBytes {
			it.fail(fmt.Errorf("mcap %s: overlapping chunks need more than %d bytes decompressed at once (raise the cache cap)", it.r.info.Path, it.r.opts.MaxCacheBytes))
			return false
		}
	}
	return true
}

// adopt registers the schemas and channels defined inside a chunk that
// the summary did not list.
func (it *Iterator) adopt(c *loaded) {
	for _, d := range c.defs {
		if d.op != opChannel {
			continue
		}
		schemas := map[uint16]*Schema{}
		chans := map[uint16]*Channel{}
		for _, s := range c.defs {
			if s.op == opSchema {
				_ = it.r.definitionRecord(s.op, s.body, s.off, schemas, chans)
			}
		}
		if it.r.definitionRecord(d.op, d.body, d.off, schemas, chans) != nil {
			continue
		}
		for id, ch := range chans {
			if it.chans[id] == nil {
				if ch.Schema == nil {
					ch.Schema = it.r.schemas[ch.SchemaID]
				}
				it.chans[id] = ch
			}
		}
	}
}

// earliest is the index in active of the block whose next message
// comes first (ties: the earlier block), or -1.
func (it *Iterator) earliest() int {
	best := -1
	for i, c := range it.active {
		if best < 0 {
			best = i
			continue
		}
		b := it.active[best]
		t, bt := c.entries[c.pos].t, b.entries[b.pos].t
		if t < bt || t == bt && c.order < b.order {
			best = i
		}
	}
	return best
}

// retire drops an exhausted block; its buffers wait for the next load.
// The current message's data stays valid: recycled buffers are only
// overwritten by a later load, which happens in a later Next.
func (it *Iterator) retire(i int) {
	c := it.active[i]
	it.cached -= c.bytes()
	it.active = append(it.active[:i], it.active[i+1:]...)
	it.ld.recycle(c)
}

func (it *Iterator) fail(err error) {
	it.err, it.done = err, true
	for len(it.active) > 0 {
		it.retire(0)
	}
}

// Message returns the current message.
func (it *Iterator) Message() Message { return it.msg }

// Err returns what stopped the Iterator early (a damaged chunk names
// its offset), or nil at the end of the file.
func (it *Iterator) Err() error {
	if it.err != nil {
		return fmt.Errorf("mcap %s: %w", it.r.info.Path, it.err)
	}
	return nil
}

// Close releases the Iterator's buffers.
func (it *Iterator) Close() {
	it.done = true
	it.active, it.ld.free = nil, nil
	it.ld.close()
}
