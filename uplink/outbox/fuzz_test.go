package outbox

import "testing"

// FuzzParseRecord: any bytes parse to a valid record or are refused;
// never a panic, never a record longer than the input or the cap, and a
// valid record re-encodes to the same bytes.
func FuzzParseRecord(f *testing.F) {
	f.Add(appendRecord(nil, recPut, PrioritySheet, 7, []byte("hello")))
	f.Add(appendRecord(nil, recAck, PriorityControl, 1, nil))
	f.Add([]byte("EDOB\xff\xff\xff\xff\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		const maxBody = 1 << 16
		r, ok := parseRecord(b, maxBody)
		if !ok {
			if next := resync(b, 0, maxBody); next > len(b) {
				t.Fatalf("resync past the end: %d > %d", next, len(b))
			}
			return
		}
		if r.size > len(b) || r.size-headerLen > maxBody {
			t.Fatalf("record of %d bytes from %d bytes (cap %d)", r.size, len(b), maxBody)
		}
		if again := appendRecord(nil, r.typ, r.prio, r.seq, r.data); string(again) != string(b[:r.size]) {
			t.Fatalf("re-encoded record differs")
		}
	})
}
