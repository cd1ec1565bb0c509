package mcap

import (
	"encoding/binary"
	"slices"
)

// The writer's side of format.go's cursor: each appends one field of a
// record's content, little-endian, as the specification lays it out.

func putU16(b []byte, v uint16) []byte { return binary.LittleEndian.AppendUint16(b, v) }
func putU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func putU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

// putStr appends a uint32-length-prefixed string (cursor.str).
func putStr(b []byte, s string) []byte { return append(putU32(b, uint32(len(s))), s...) }

// putBytes32 appends uint32-length-prefixed bytes (cursor.bytes32).
func putBytes32(b []byte, p []byte) []byte { return append(putU32(b, uint32(len(p))), p...) }

// putStrMap appends a map<string,string> (cursor.strMap): its byte
// length, then the pairs sorted by key, so the same map always gives
// the same bytes.
func putStrMap(b []byte, m map[string]string) []byte {
	at := len(b)
	b = putU32(b, 0)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b = putStr(putStr(b, k), m[k])
	}
	binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
	return b
}

// strMapSize is the encoded size of putStrMap's output.
func strMapSize(m map[string]string) int {
	n := 4
	for k, v := range m {
		n += 8 + len(k) + len(v)
	}
	return n
}

// beginRecord appends a record's opcode and a placeholder length;
// endRecord fills the length in once the content is appended.
func beginRecord(b []byte, op byte) ([]byte, int) {
	return putU64(append(b, op), 0), len(b)
}

func endRecord(b []byte, at int) []byte {
	binary.LittleEndian.PutUint64(b[at+1:], uint64(len(b)-at-recordPrefix))
	return b
}
