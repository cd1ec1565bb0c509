package wire

import (
	"testing"
)

func seedEnvelopes(f *testing.F) {
	b, _ := New("0123456789abcdef0123456789abcdef", "arm-01", "ep1", KindSegment, 3, 1, []byte("body")).MarshalMsg(nil)
	f.Add(b)
	big := New(NewID(), "arm-01", "ep1", KindSheet, 1, 1, make([]byte, 5000))
	parts, _ := Split(big, 2048)
	for _, p := range parts {
		f.Add(p)
	}
	f.Add([]byte{0xdd, 0xff, 0xff, 0xff, 0xff})
}

func FuzzDecodeEnvelope(f *testing.F) {
	seedEnvelopes(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		e, err := Decode(b, 1<<20)
		if err != nil {
			return
		}
		if err := e.Validate(); err != nil {
			t.Fatalf("decoded but invalid: %v", err)
		}
		out, err := e.MarshalMsg(nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(out, 1<<20); err != nil {
			t.Fatalf("re-encoded envelope does not decode: %v", err)
		}
	})
}

func FuzzDecodeSnippet(f *testing.F) {
	sn := &Snippet{Episode: "ep", Camera: "/cam", Names: []string{"a", "b"}, FirstTick: 1, LastTick: 2,
		Samples: []JointSample{{Tick: 1, Position: []float64{1, 2}, Velocity: []float64{0, 0}, Effort: []float64{3, 4}}}}
	b, _ := EncodeSnippet(sn)
	f.Add(b)
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd})
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeSnippet(b)
		if err != nil {
			return
		}
		for _, j := range s.Samples {
			if len(j.Position) != len(s.Names) {
				t.Fatal("sample width not checked")
			}
		}
	})
}

func FuzzDecodeRepair(f *testing.F) {
	r := Repair{Robot: "arm-01", Episode: "arm-01-20260101T000000.000Z", Time: 1, Missing: []string{"segment/2", "sheet/top/3", "episode_end/1"}, More: true}
	b, _ := r.MarshalMsg(nil)
	f.Add(b)
	f.Add([]byte{0xdc, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeRepair(b)
		if err != nil {
			return
		}
		for _, s := range r.Missing {
			p, err := ParsePiece(s)
			if err != nil || p.String() != s {
				t.Fatalf("piece %q decoded but does not round-trip: %v %v", s, p, err)
			}
		}
	})
}
