package mcap

import "fmt"

// scan reads the data section record by record (a file without a
// summary, or one cut short): it registers schemas, channels and
// metadata, and every chunk and loose message as a block. Each chunk is
// decompressed once to find the schemas and channels inside it (and to
// check it); a damaged one is left out and named in Info.Problems. The
// scan stops at DataEnd (checking the data section CRC it holds), the
// footer, or the first record it cannot read.
func (r *Reader) scan() {
	_, n, err := r.recordHeader(int64(len(Magic)))
	if err != nil {
		r.problem(err)
		return
	}
	off := int64(len(Magic)) + recordPrefix + int64(n) // past the header
	var ld loader
	defer ld.close()
	for off < r.size {
		op, n, err := r.recordHeader(off)
		if err != nil {
			if off+int64(len(Magic)) == r.size {
				break // the closing magic of a file without footer
			}
			r.problem(err)
			return
		}
		if op == opDataEnd {
			r.checkDataCRC(off, n)
			return
		}
		if op == opFooter {
			return
		}
		if err := r.scanRecord(&ld, op, off, n); err != nil {
			r.problem(err)
			if op != opChunk {
				return
			}
		}
		off += recordPrefix + int64(n)
	}
}

func (r *Reader) problem(err error) {
	r.info.Problems = append(r.info.Problems, fmt.Sprintf("%v; what precedes it is read", err))
}

func (r *Reader) scanRecord(ld *loader, op byte, off int64, n uint64) error {
	switch op {
	case opSchema, opChannel, opMetadata:
		_, content, err := r.readRecord(off, r.opts.MaxRecordBytes)
		if err != nil {
			return err
		}
		if op == opMetadata {
			r.info.MetadataRecords++
			return r.addMetadata(content, off)
		}
		return r.definitionRecord(op, content, off, r.schemas, r.channels)
	case opMessage:
		var p [recordPrefix + 22]byte
		if n < 22 {
			return corrupt(off, "message record of %d bytes, shorter than its fields", n)
		}
		if _, err := r.ra.ReadAt(p[:], off); err != nil {
			return corrupt(off, "message record unreadable: %v", err)
		}
		c := cursor{b: p[recordPrefix:]}
		ch, _, t := c.u16(), c.u32(), c.u64()
		r.blocks = append(r.blocks, block{offset: off, length: n, start: t, end: t})
		r.info.Messages++
		r.info.ChannelCounts[ch]++
	case opChunk:
		return r.scanChunk(ld, off, n)
	}
	return nil
}

// scanChunk checks a chunk and takes what it defines and holds.
func (r *Reader) scanChunk(ld *loader, off int64, n uint64) error {
	b := block{offset: off, length: n, chunk: true}
	c, err := ld.load(r, b)
	if err != nil {
		return err
	}
	b.start, b.end = c.start, c.end
	for _, d := range c.defs {
		if err := r.definitionRecord(d.op, d.body, d.off, r.schemas, r.channels); err != nil {
			return err
		}
	}
	for _, e := range c.entries {
		r.info.ChannelCounts[e.channel]++
	}
	r.info.Messages += uint64(len(c.entries))
	r.info.Chunks++
	r.info.Compression[c.compression]++
	r.blocks = append(r.blocks, b)
	ld.recycle(c)
	return nil
}
