package bag

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
)

// entry is one message in the time order: its time, where it is (chunk
// index and offset in the chunk's uncompressed data) and its connection
// (index into Reader.conns).
type entry struct {
	t     int64
	chunk int32
	off   uint32
	conn  int32
}

// sortEntries puts messages in rosbag's order: by time, then connection
// (in the order the bag lists them), then position in the file.
func sortEntries(es []entry) {
	slices.SortFunc(es, func(a, b entry) int {
		switch {
		case a.t != b.t:
			return cmp.Compare(a.t, b.t)
		case a.conn != b.conn:
			return cmp.Compare(a.conn, b.conn)
		case a.chunk != b.chunk:
			return cmp.Compare(a.chunk, b.chunk)
		}
		return cmp.Compare(a.off, b.off)
	})
}

// fileRecord is a record header read from the file; the data stays on
// disk until asked for.
type fileRecord struct {
	pos     int64
	h       recordHeader
	hbuf    []byte
	dataPos int64
	dataLen int64 // as declared
	cut     bool  // the data runs past the end of the file
}

// readRecord reads the header of the record at pos. A header cut by the
// end of the file is an error wrapping errTruncated; data cut short sets
// rec.cut and is left to the caller.
func (r *Reader) readRecord(pos int64, rec *fileRecord) error {
	rec.pos, rec.cut = pos, false
	if pos < 0 || r.size-pos < 4 {
		return r.corrupt(pos, "record header length: %w", errTruncated)
	}
	var lb [4]byte
	if _, err := r.ra.ReadAt(lb[:], pos); err != nil {
		return r.corrupt(pos, "read record header length: %w", err)
	}
	hl := int64(binary.LittleEndian.Uint32(lb[:]))
	if err := checkHeaderLen(hl, r.opts.MaxHeaderBytes); err != nil {
		return r.corrupt(pos, "%w", err)
	}
	if r.size-pos-4 < hl+4 {
		return r.corrupt(pos, "record header of %d bytes: %w", hl, errTruncated)
	}
	rec.hbuf = grow(rec.hbuf, int(hl)+4)
	if _, err := r.ra.ReadAt(rec.hbuf, pos+4); err != nil {
		return r.corrupt(pos, "read record header: %w", err)
	}
	if err := parseHeader(rec.hbuf[:hl], &rec.h); err != nil {
		return r.corrupt(pos, "record header: %w", err)
	}
	if err := rec.h.require(); err != nil {
		return r.corrupt(pos, "%w", err)
	}
	rec.dataLen = int64(binary.LittleEndian.Uint32(rec.hbuf[hl:]))
	rec.dataPos = pos + 8 + hl
	rec.cut = rec.dataLen > r.size-rec.dataPos
	return nil
}

// readData reads a record's data, capped at limit bytes.
func (r *Reader) readData(rec *fileRecord, limit int) ([]byte, error) {
	if rec.cut {
		return nil, r.corrupt(rec.pos, "%s record data of %d bytes: %w", opName(rec.h.op), rec.dataLen, errTruncated)
	}
	if rec.dataLen > int64(limit) {
		return nil, r.corrupt(rec.pos, "%s record data length %d exceeds the cap %d", opName(rec.h.op), rec.dataLen, limit)
	}
	b := make([]byte, rec.dataLen)
	if _, err := r.ra.ReadAt(b, rec.dataPos); err != nil {
		return nil, r.corrupt(rec.pos, "read %s record data: %w", opName(rec.h.op), err)
	}
	return b, nil
}

// readIndex reads the index section the bag header points at: the
// connection records, the chunk info records, and for each chunk the
// index data records that follow it. Any error means the caller scans.
func (r *Reader) readIndex(bh *recordHeader, afterHeader int64) error {
	if bh.indexPos == 0 {
		return errors.New("the bag header has no index position (the bag was not closed: still recording or cut short)")
	}
	if bh.indexPos < uint64(afterHeader) || bh.indexPos > uint64(r.size) {
		return r.corrupt(len64(Magic), "index position %d is outside the file (%d bytes)", bh.indexPos, r.size)
	}
	pos := int64(bh.indexPos)
	var rec fileRecord
	for range bh.connCount {
		if err := r.readRecord(pos, &rec); err != nil {
			return err
		}
		if rec.h.op != opConnection {
			return r.corrupt(pos, "index section: a %s record where a connection record belongs", opName(rec.h.op))
		}
		data, err := r.readData(&rec, r.opts.MaxConnectionBytes)
		if err != nil {
			return err
		}
		if err := r.addConnection(&rec.h, data); err != nil {
			return r.corrupt(pos, "%w", err)
		}
		pos = rec.dataPos + rec.dataLen
	}
	for range bh.chunkCount {
		if err := r.readRecord(pos, &rec); err != nil {
			return err
		}
		if rec.h.op != opChunkInfo {
			return r.corrupt(pos, "index section: a %s record where a chunk info record belongs", opName(rec.h.op))
		}
		if rec.h.ver != 1 {
			return r.corrupt(pos, "chunk info version %d, want 1", rec.h.ver)
		}
		if rec.cut || rec.dataLen != 8*int64(rec.h.count) {
			return r.corrupt(pos, "chunk info data of %d bytes for %d connections", rec.dataLen, rec.h.count)
		}
		if err := r.readChunkIndex(int64(rec.h.chunkPos), int(rec.h.count)); err != nil {
			return err
		}
		pos = rec.dataPos + rec.dataLen
	}
	return nil
}

// readChunkIndex reads the chunk record at pos and the index data
// records (one per connection, nconn of them) that follow its data.
func (r *Reader) readChunkIndex(pos int64, nconn int) error {
	var rec fileRecord
	if err := r.readRecord(pos, &rec); err != nil {
		return err
	}
	if rec.h.op != opChunk {
		return r.corrupt(pos, "chunk info points at a %s record", opName(rec.h.op))
	}
	if n := len(r.chunks); n > 0 && pos <= r.chunks[n-1].dataPos {
		// rosbag writes chunks in file order; a repeated or backward
		// position would make one chunk count (and decompress) twice
		return r.corrupt(pos, "chunk info positions out of order (%d after %d)", pos, r.chunks[n-1].pos)
	}
	ref, err := r.chunkRef(&rec)
	if err != nil {
		return err
	}
	if rec.cut {
		return r.corrupt(pos, "chunk data of %d bytes: %w", rec.dataLen, errTruncated)
	}
	ci := int32(len(r.chunks))
	r.chunks = append(r.chunks, ref)
	ipos := rec.dataPos + rec.dataLen
	for range nconn {
		if err := r.readRecord(ipos, &rec); err != nil {
			return err
		}
		if rec.h.op != opIndexData {
			return r.corrupt(ipos, "a %s record where the chunk's index data belongs", opName(rec.h.op))
		}
		if rec.h.ver != 1 {
			return r.corrupt(ipos, "index data version %d, want 1", rec.h.ver)
		}
		conn, ok := r.byID[rec.h.conn]
		if !ok {
			return r.corrupt(ipos, "index data for connection %d, which the bag does not list", rec.h.conn)
		}
		if rec.cut || rec.dataLen != 12*int64(rec.h.count) {
			return r.corrupt(ipos, "index data of %d bytes for %d messages", rec.dataLen, rec.h.count)
		}
		data, err := r.readData(&rec, int(rec.dataLen))
		if err != nil {
			return err
		}
		for b := data; len(b) >= 12; b = b[12:] {
			off := binary.LittleEndian.Uint32(b[8:])
			if off >= ref.size {
				return r.corrupt(ipos, "index entry at offset %d is outside the chunk (%d bytes)", off, ref.size)
			}
			r.entries = append(r.entries, entry{t: rosTimeFrom(b).nanos(), chunk: ci, off: off, conn: conn})
		}
		ipos = rec.dataPos + rec.dataLen
	}
	return nil
}

// chunkRef checks a chunk record's compression and sizes against the caps.
func (r *Reader) chunkRef(rec *fileRecord) (chunkRef, error) {
	comp, err := parseCompression(rec.h.compression)
	if err != nil {
		return chunkRef{}, fmt.Errorf("bag %s: chunk at offset %d: %w", r.path, rec.pos, err)
	}
	if rec.dataLen > int64(r.opts.MaxChunkBytes) || int64(rec.h.size) > int64(r.opts.MaxChunkBytes) {
		return chunkRef{}, r.corrupt(rec.pos, "chunk of %d bytes (%d uncompressed) exceeds the cap %d",
			rec.dataLen, rec.h.size, r.opts.MaxChunkBytes)
	}
	return chunkRef{pos: rec.pos, dataPos: rec.dataPos, dataLen: rec.dataLen, size: rec.h.size, comp: comp}, nil
}

func len64(s string) int64 { return int64(len(s)) }

// scan reads the file record by record from pos, as `rosbag reindex`
// does, for a bag whose index is missing or broken. It decompresses
// every chunk to find its connections and messages. A damaged chunk
// keeps the messages before the damage; a record cut by the end of the
// file ends the scan. Every such loss is reported in Info.Problems.
func (r *Reader) scan(pos int64) error {
	var rec fileRecord
	var d decoder
	var buf []byte
	for pos < r.size {
		if err := r.readRecord(pos, &rec); err != nil {
			r.problem("scan stopped: %v", err)
			break
		}
		next := rec.dataPos + rec.dataLen
		switch rec.h.op {
		case opChunk:
			buf = r.scanChunk(&rec, &d, buf)
		case opConnection:
			data, err := r.readData(&rec, r.opts.MaxConnectionBytes)
			if err == nil {
				err = r.addConnection(&rec.h, data)
			}
			if err != nil {
				r.problem("connection record at offset %d skipped: %v", rec.pos, err)
			}
		case opMsgData:
			r.scanLooseMessage(&rec)
		}
		if rec.cut {
			r.problem("%s record at offset %d: %d bytes of data, the file ends %d bytes in",
				opName(rec.h.op), rec.pos, rec.dataLen, r.size-rec.dataPos)
			break
		}
		pos = next
	}
	return nil
}

func (r *Reader) problem(format string, args ...any) {
	const most = 100 // a badly damaged file must not grow Info without bound
	if len(r.info.Problems) == most {
		r.info.Problems = append(r.info.Problems, "more problems not listed")
	}
	if len(r.info.Problems) < most {
		r.info.Problems = append(r.info.Problems, fmt.Sprintf(format, args...))
	}
}

// scanChunk decodes one chunk and indexes the records in it.
func (r *Reader) scanChunk(rec *fileRecord, d *decoder, buf []byte) []byte {
	ref, err := r.chunkRef(rec)
	if err != nil {
		r.problem("chunk skipped: %v", err)
		return buf
	}
	if rec.cut {
		ref.dataLen, ref.partial = r.size-rec.dataPos, true
	}
	buf, n, err := r.decodeChunk(&ref, buf, d)
	if err != nil || ref.partial {
		r.problem("chunk at offset %d damaged or cut short: %d of %d bytes decoded (%v)", rec.pos, n, ref.size, err)
		ref.partial, ref.size = true, uint32(n)
	}
	ci := int32(len(r.chunks))
	r.chunks = append(r.chunks, ref)
	var m memRecord
	for off := 0; off < n; off = m.next {
		if err := parseRecordAt(buf[:n], off, r.opts.MaxHeaderBytes, &m); err != nil {
			r.problem("%v; the rest of the chunk is skipped", r.corruptIn(rec.pos, int64(off), err))
			break
		}
		if err := m.h.require(); err != nil {
			r.problem("%v; record skipped", r.corruptIn(rec.pos, int64(off), err))
			continue
		}
		switch m.h.op {
		case opConnection:
			if err := r.addConnection(&m.h, m.data); err != nil {
				r.problem("%v; record skipped", r.corruptIn(rec.pos, int64(off), err))
			}
		case opMsgData:
			conn, ok := r.byID[m.h.conn]
			if !ok {
				r.problem("%v", r.corruptIn(rec.pos, int64(off), fmt.Errorf("message on connection %d before its connection record; skipped", m.h.conn)))
				continue
			}
			r.entries = append(r.entries, entry{t: m.h.time.nanos(), chunk: ci, off: uint32(off), conn: conn})
		}
	}
	return buf
}

// scanLooseMessage indexes a message record outside any chunk (format
// 2.0 writers do not produce them, but a damaged or hand-made bag may).
func (r *Reader) scanLooseMessage(rec *fileRecord) {
	conn, ok := r.byID[rec.h.conn]
	switch {
	case rec.cut:
		return
	case !ok:
		r.problem("message record at offset %d on unknown connection %d skipped", rec.pos, rec.h.conn)
		return
	case rec.dataPos+rec.dataLen-rec.pos > int64(r.opts.MaxChunkBytes):
		r.problem("message record at offset %d exceeds the cap %d; skipped", rec.pos, r.opts.MaxChunkBytes)
		return
	}
	n := rec.dataPos + rec.dataLen - rec.pos
	ci := int32(len(r.chunks))
	r.chunks = append(r.chunks, chunkRef{pos: rec.pos, dataPos: rec.pos, dataLen: n, size: uint32(n), virtual: true})
	r.entries = append(r.entries, entry{t: rec.h.time.nanos(), chunk: ci, conn: conn})
}
