package mcap

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// checkMessageIndexes reads what edged's Reader skips: every Chunk
// Index's Message Index records (right after their chunk, entries in
// log-time order, each at a message of its channel and time in the
// decompressed chunk), and the Summary Offset records (each group's
// records all of its opcode, the groups covering the summary).
func checkMessageIndexes(t *testing.T, file []byte, messages int) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(file), int64(len(file)), "index.mcap", Options{})
	if err != nil {
		t.Fatal(err)
	}
	foot := cursor{b: file[len(file)-footerSize+recordPrefix:]}
	sumStart, offStart := foot.u64(), foot.u64()
	indexed := 0
	var ld loader
	defer ld.close()
	for _, rec := range records(t, file[sumStart:offStart]) {
		if rec.op == opChunkIndex {
			indexed += checkChunkIndex(t, r, &ld, file, rec.body)
		}
	}
	if indexed != messages {
		t.Errorf("message indexes list %d messages, want %d", indexed, messages)
	}
	covered := uint64(0)
	for _, rec := range records(t, file[offStart:len(file)-footerSize]) {
		c := cursor{b: rec.body}
		op, start, length := c.u8(), c.u64(), c.u64()
		for _, g := range records(t, file[start:start+length]) {
			if g.op != op {
				t.Errorf("summary offset for opcode 0x%02x covers a record of opcode 0x%02x", op, g.op)
			}
		}
		covered += length
	}
	if covered != offStart-sumStart {
		t.Errorf("summary offsets cover %d bytes of a %d-byte summary", covered, offStart-sumStart)
	}
}

type rawRecord struct {
	op   byte
	body []byte
}

// records splits b into records; the test fails if they do not tile it.
func records(t *testing.T, b []byte) []rawRecord {
	t.Helper()
	var out []rawRecord
	for len(b) > 0 {
		c := cursor{b: b}
		op, n := c.u8(), c.u64()
		body := c.take(n)
		if c.err {
			t.Fatalf("record cut short: %d bytes left", len(b))
		}
		out = append(out, rawRecord{op, body})
		b = c.b
	}
	return out
}

// checkChunkIndex checks one chunk's message indexes; it returns how
// many messages they list.
func checkChunkIndex(t *testing.T, r *Reader, ld *loader, file []byte, body []byte) int {
	t.Helper()
	c := cursor{b: body}
	start, end, at, length := c.u64(), c.u64(), c.u64(), c.u64()
	offsets := cursor{b: c.bytes32()}
	indexLength := c.u64()
	chunk, err := ld.load(r, block{offset: int64(at), length: length - recordPrefix, chunk: true})
	if err != nil {
		t.Fatal(err)
	}
	next, n := at+length, 0
	for len(offsets.b) > 0 {
		ch, off := offsets.u16(), offsets.u64()
		if off != next {
			t.Fatalf("message index of channel %d at %d, want %d (right after the chunk and the ones before)", ch, off, next)
		}
		rec := records(t, file[off:off+recordPrefix+binary.LittleEndian.Uint64(file[off+1:])])[0]
		next += recordPrefix + uint64(len(rec.body))
		ix := cursor{b: rec.body}
		if rec.op != opMessageIndex || ix.u16() != ch {
			t.Fatalf("message index at %d: opcode 0x%02x for another channel", off, rec.op)
		}
		entries, last := cursor{b: ix.bytes32()}, uint64(0)
		for len(entries.b) > 0 {
			logTime, pos := entries.u64(), entries.u64()
			m := cursor{b: chunk.data[pos:]}
			op, _ := m.u8(), m.u64()
			if op != opMessage || m.u16() != ch || logTime < last || logTime < start || logTime > end {
				t.Fatalf("index entry (%d, %d) of channel %d does not point at its message", logTime, pos, ch)
			}
			if got := (&cursor{b: chunk.data[pos+recordPrefix+2+4:]}).u64(); got != logTime {
				t.Fatalf("index entry of channel %d at %d: message logged at %d", ch, logTime, got)
			}
			last = logTime
			n++
		}
	}
	if next-at-length != indexLength {
		t.Errorf("chunk at %d: message index length %d, the records take %d", at, indexLength, next-at-length)
	}
	return n
}
