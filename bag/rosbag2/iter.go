package rosbag2

import (
	"fmt"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/edged-robotics/edged/bag"
)

// Iterator walks a bag's messages in time order: each storage file's in
// log-time order, the files one after the other as metadata.yaml lists
// them (rosbag2 splits a bag by time, so they follow each other). It is
// for one goroutine; several may run on one Reader.
type Iterator struct {
	r    *Reader
	want map[string]bool
	file int
	cur  storageIter
	conn []*bag.Connection // the current file's topic index -> connection
	msg  bag.Message
	err  error
	zr   *zstd.Decoder
	buf  []byte
}

// Messages returns an Iterator over the given topics (all when none).
func (r *Reader) Messages(topics ...string) *Iterator {
	it := &Iterator{r: r}
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
	for it.err == nil {
		if it.cur == nil && !it.openNext() {
			return false
		}
		if !it.cur.next() {
			if err := it.cur.err(); err != nil {
				it.err = err
				return false
			}
			it.cur.close()
			it.cur = nil
			continue
		}
		ti, t, data := it.cur.message()
		if ti < 0 || ti >= len(it.conn) {
			continue // a channel no topic list names: nobody asked for it
		}
		if it.r.meta != nil && it.r.meta.CompressionMode == "MESSAGE" {
			var ok bool
			if data, ok = it.decompress(data); !ok {
				return false
			}
		}
		it.msg = bag.Message{Conn: it.conn[ti], Time: time.Unix(0, t), Data: data}
		return true
	}
	return false
}

func (it *Iterator) openNext() bool {
	if it.file >= len(it.r.files) {
		return false
	}
	f := it.r.files[it.file]
	it.file++
	it.conn = it.conn[:0]
	for _, m := range f.topics() {
		it.conn = append(it.conn, it.r.byTopic[m.name])
	}
	it.cur = f.messages(it.want)
	return true
}

// decompress undoes rosbag2's message compression (one zstd frame per
// message), capped at MaxMessageBytes.
func (it *Iterator) decompress(data []byte) ([]byte, bool) {
	if it.zr == nil {
		zr, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxMemory(uint64(it.r.opts.MaxMessageBytes)))
		if err != nil {
			it.err = err
			return nil, false
		}
		it.zr = zr
	}
	out, err := it.zr.DecodeAll(data, it.buf[:0])
	if err != nil {
		it.err = fmt.Errorf("message compressed with zstd does not decompress: %w", err)
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
	if it.cur != nil {
		it.cur.close()
		it.cur = nil
	}
	if it.zr != nil {
		it.zr.Close()
		it.zr = nil
	}
	it.file = len(it.r.files)
}
