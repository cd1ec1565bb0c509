package tcpros

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"reflect"
	"strings"
	"testing"
)

func frame(body []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
}

func TestHeaderRoundTrip(t *testing.T) {
	h := Header{"callerid": "/talker", "type": "std_msgs/String", "md5sum": "992ce8a1687cec8c8bd883ec73ca41d1",
		"message_definition": "string data\n", "latching": "1", "empty": ""}
	b := EncodeHeader(h)
	got, err := ReadHeader(bytes.NewReader(b), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, h) {
		t.Fatalf("got %v", got)
	}
}

func TestHeaderValueWithEquals(t *testing.T) {
	got, err := DecodeHeader(EncodeHeader(Header{"message_definition": "int8 A=1\nint8 a"})[4:])
	if err != nil || got["message_definition"] != "int8 A=1\nint8 a" {
		t.Fatalf("got %v %v", got, err)
	}
}

func TestHeaderErrors(t *testing.T) {
	tests := []struct {
		name string
		data []byte
		max  int
		want error
	}{
		{"total over cap", binary.LittleEndian.AppendUint32(nil, 1<<30), 0, ErrTooLarge},
		{"total over small cap", EncodeHeader(Header{"a": strings.Repeat("x", 100)}), 50, ErrTooLarge},
		{"field over cap", append(binary.LittleEndian.AppendUint32(nil, 8), append(binary.LittleEndian.AppendUint32(nil, MaxFieldBytes+1), "a=bc"...)...), 0, ErrTooLarge},
		{"field past end", append(binary.LittleEndian.AppendUint32(nil, 8), append(binary.LittleEndian.AppendUint32(nil, 10), "a=bc"...)...), 0, ErrMalformed},
		{"no equals", frame(frame([]byte("abc"))), 0, ErrMalformed},
		{"empty key", frame(frame([]byte("=abc"))), 0, ErrMalformed},
		{"stray bytes", frame(append(frame([]byte("a=b")), 1, 2)), 0, ErrMalformed},
		{"cut short", []byte{10, 0, 0, 0, 1}, 0, io.ErrUnexpectedEOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadHeader(bytes.NewReader(tt.data), tt.max)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestHandshake(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() {
		h, err := ReadHeader(b, 0)
		if err != nil || h["md5sum"] != "*" || h["type"] != "*" || h["topic"] != "/t" || h["tcp_nodelay"] != "1" || h["callerid"] != "/edged" {
			_, _ = b.Write(EncodeHeader(Header{"error": "bad header"}))
			return
		}
		_, _ = b.Write(EncodeHeader(Header{"callerid": "/pub", "type": "std_msgs/String", "md5sum": "abc",
			"message_definition": "string data\n", "latching": "1", "topic": "/t"}))
	}()
	ph, err := Handshake(a, SubscriberHeader{CallerID: "/edged", Topic: "/t", TCPNoDelay: true}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if ph.CallerID != "/pub" || ph.Type != "std_msgs/String" || !ph.Latching || ph.MessageDefinition != "string data\n" {
		t.Fatalf("got %+v", ph)
	}
}

func TestHandshakeRefused(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	go func() {
		_, _ = ReadHeader(b, 0)
		_, _ = b.Write(EncodeHeader(Header{"error": "md5 mismatch"}))
	}()
	if _, err := Handshake(a, SubscriberHeader{Topic: "/t"}, 0); err == nil || !strings.Contains(err.Error(), "md5 mismatch") {
		t.Fatalf("got %v", err)
	}
}

func TestFrameReader(t *testing.T) {
	var stream []byte
	bodies := [][]byte{{}, []byte("hello"), bytes.Repeat([]byte{7}, 100000), []byte("x")}
	for _, b := range bodies {
		stream = append(stream, frame(b)...)
	}
	pool := NewPool()
	fr := NewFrameReader(bytes.NewReader(stream), 200000, pool)
	for i, want := range bodies {
		b, err := fr.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if !bytes.Equal(b.B, want) {
			t.Fatalf("frame %d: got %d bytes", i, len(b.B))
		}
		pool.Put(b)
	}
	if _, err := fr.Next(); err != io.EOF {
		t.Fatalf("at end: %v", err)
	}
}

func TestFrameReaderCaps(t *testing.T) {
	fr := NewFrameReader(bytes.NewReader(binary.LittleEndian.AppendUint32(nil, 0xFFFFFFFF)), 1000, nil)
	if _, err := fr.Next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("absurd length: %v", err)
	}
	fr = NewFrameReader(bytes.NewReader(append(binary.LittleEndian.AppendUint32(nil, 10), "abc"...)), 1000, nil)
	if _, err := fr.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("short frame: %v", err)
	}
}

func TestPoolClasses(t *testing.T) {
	prev := 0
	for _, n := range []int{0, 1, 512, 513, 640, 641, 1024, 1025, 2764800, 24883200, 1 << 30, 1<<31 - 1, 1 << 31} {
		c, size := classOf(n)
		if size < n || size > n*5/4+512 || c < 0 || c >= numClasses || c < prev {
			t.Fatalf("classOf(%d) = %d, %d", n, c, size)
		}
		prev = c
	}
	p := NewPool()
	b := p.Get(1000)
	if len(b.B) != 1000 || cap(b.B) != 1024 {
		t.Fatalf("len %d cap %d", len(b.B), cap(b.B))
	}
	p.Put(b)
	p.Put(nil)
}

func FuzzHeader(f *testing.F) {
	f.Add(EncodeHeader(Header{"callerid": "/a", "type": "std_msgs/String", "md5sum": "*"}))
	f.Add([]byte{4, 0, 0, 0, 255, 255, 255, 255})
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ReadHeader(bytes.NewReader(data), 4096)
		if err != nil {
			return
		}
		again, err := DecodeHeader(EncodeHeader(h)[4:])
		if err != nil || !reflect.DeepEqual(again, h) {
			t.Fatalf("round trip of %v: %v %v", h, again, err)
		}
	})
}

func FuzzFrames(f *testing.F) {
	f.Add(append(frame([]byte("abc")), frame(nil)...))
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 1})
	f.Fuzz(func(t *testing.T, data []byte) {
		pool := NewPool()
		fr := NewFrameReader(bytes.NewReader(data), 1<<16, pool)
		total := 0
		for {
			b, err := fr.Next()
			if err != nil {
				break
			}
			total += 4 + len(b.B)
			pool.Put(b)
		}
		if total > len(data) {
			t.Fatalf("read %d bytes of frames from %d bytes", total, len(data))
		}
	})
}

// loopReader replays one stream forever without allocating.
type loopReader struct {
	data []byte
	off  int
}

func (r *loopReader) Read(p []byte) (int, error) {
	if r.off == len(r.data) {
		r.off = 0
	}
	n := copy(p, r.data[r.off:])
	r.off += n
	return n, nil
}

func benchmarkFrames(b *testing.B, size int) {
	body := make([]byte, size)
	stream := frame(body)
	pool := NewPool()
	fr := NewFrameReader(&loopReader{data: stream}, 0, pool)
	b.ReportAllocs()
	b.SetBytes(int64(len(stream)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf, err := fr.Next()
		if err != nil {
			b.Fatal(err)
		}
		pool.Put(buf)
	}
}

// BenchmarkFrameReaderJointState is the framed reader path for a 26-joint
// JointState (about 700 bytes): must report 0 allocs/op.
func BenchmarkFrameReaderJointState(b *testing.B) { benchmarkFrames(b, 700) }

// BenchmarkFrameReaderImage720p is the framed reader path for a 1280x720
// rgb8 Image: must report 0 allocs/op.
func BenchmarkFrameReaderImage720p(b *testing.B) { benchmarkFrames(b, 1280*720*3+60) }

// TestReadBodyStepsOnlyBeyondWhatWasSent: a frame no larger than the
// last one the peer sent whole is read into one buffer (a camera's
// stream: no copy between steps); a larger one, or one after a skipped
// frame, grows in steps from what was sent.
func TestReadBodyStepsOnlyBeyondWhatWasSent(t *testing.T) {
	big := 5*GrowStep + 3
	for _, tc := range []struct {
		name   string
		sizes  []int  // frames in the stream
		refuse []bool // the reserve function refuses the frame's first step
		asked  [][]int
	}{
		{"a steady stream", []int{big, big, big}, nil, [][]int{{GrowStep, 3 * GrowStep, GrowStep + 3}, {big}, {big}}},
		{"smaller after larger", []int{big, 2 * GrowStep}, nil, [][]int{{GrowStep, 3 * GrowStep, GrowStep + 3}, {2 * GrowStep}}},
		{"larger grows from the last", []int{2 * GrowStep, big}, nil, [][]int{{GrowStep, GrowStep}, {2 * GrowStep, 3*GrowStep + 3}}},
		{"after a skipped frame", []int{big, big, big}, []bool{false, true, false},
			[][]int{{GrowStep, 3 * GrowStep, GrowStep + 3}, {big}, {GrowStep, 3 * GrowStep, GrowStep + 3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stream []byte
			for _, n := range tc.sizes {
				stream = append(stream, frame(make([]byte, n))...)
			}
			fr := NewFrameReader(bytes.NewReader(stream), 0, nil)
			for i := range tc.sizes {
				n, err := fr.ReadLength()
				if err != nil {
					t.Fatal(err)
				}
				refuse := i < len(tc.refuse) && tc.refuse[i]
				var asked []int
				_, err = fr.ReadBody(n, func(k int) bool { asked = append(asked, k); return !refuse })
				if refuse != errors.Is(err, ErrNoRoom) || (!refuse && err != nil) {
					t.Fatalf("frame %d: %v", i, err)
				}
				if !reflect.DeepEqual(asked, tc.asked[i]) {
					t.Errorf("frame %d of %d bytes: asked %v, want %v", i, n, asked, tc.asked[i])
				}
			}
		})
	}
}

// A large body is read in bounded steps, each asked of reserve first; a
// refusal skips the body and leaves the stream in sync.
func TestReadBodyInSteps(t *testing.T) {
	big := bytes.Repeat([]byte{5}, 5*GrowStep+3)
	stream := append(frame(big), frame([]byte("next"))...)
	var asked []int
	fr := NewFrameReader(bytes.NewReader(stream), 0, nil)
	n, err := fr.ReadLength()
	if err != nil {
		t.Fatal(err)
	}
	b, err := fr.ReadBody(n, func(k int) bool { asked = append(asked, k); return true })
	if err != nil || !bytes.Equal(b.B, big) {
		t.Fatalf("body: %v", err)
	}
	sum := 0
	for _, k := range asked {
		sum += k
	}
	if want := []int{GrowStep, 3 * GrowStep, GrowStep + 3}; !reflect.DeepEqual(asked, want) || sum != len(big) {
		t.Fatalf("asked %v, want %v (1, 4, then 5 MiB + 3)", asked, want)
	}
	fr = NewFrameReader(bytes.NewReader(stream), 0, nil)
	n, _ = fr.ReadLength()
	if _, err := fr.ReadBody(n, func(k int) bool { return k < GrowStep }); !errors.Is(err, ErrNoRoom) {
		t.Fatalf("refused: %v", err)
	}
	if b, err := fr.Next(); err != nil || string(b.B) != "next" {
		t.Fatalf("after a skipped frame: %v", err)
	}
	// a peer that stalls mid-body: what was read is at most 4x what it sent
	fr = NewFrameReader(bytes.NewReader(frame(big)[:4+GrowStep+10]), 0, nil)
	n, _ = fr.ReadLength()
	var reserved int
	if _, err := fr.ReadBody(n, func(k int) bool { reserved += k; return true }); !errors.Is(err, io.ErrUnexpectedEOF) || reserved > 4*GrowStep {
		t.Fatalf("cut short: %v, reserved %d", err, reserved)
	}
}

// scripted reads its steps one Read each; a nil step fails that Read
// with err (a connection whose read deadline expired).
type scripted struct {
	steps [][]byte
	err   error
}

func (r *scripted) Read(p []byte) (int, error) {
	for len(r.steps) > 0 && r.steps[0] != nil && len(r.steps[0]) == 0 {
		r.steps = r.steps[1:]
	}
	if len(r.steps) == 0 {
		return 0, io.EOF
	}
	if r.steps[0] == nil {
		r.steps = r.steps[1:]
		return 0, r.err
	}
	n := copy(p, r.steps[0])
	r.steps[0] = r.steps[0][n:]
	return n, nil
}

// A read error in the middle of a length (the connection's read deadline
// expiring while the publisher idles between frames) consumes nothing:
// ReadLength again reads the same frame's length and the stream stays in
// sync (the reader's deadline is left armed between frames, conn.go).
func TestReadLengthKeepsSyncAcrossAnError(t *testing.T) {
	f := frame([]byte("hello"))
	tests := []struct {
		name  string
		split int // bytes of the length sent before the error
	}{{"none", 0}, {"two", 2}, {"three", 3}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			deadline := errors.New("i/o timeout")
			r := &scripted{steps: [][]byte{f[:tc.split], nil, f[tc.split:]}, err: deadline}
			fr := NewFrameReader(r, 0, nil)
			if _, err := fr.ReadLength(); !errors.Is(err, deadline) {
				t.Fatalf("first ReadLength: %v, want the read error", err)
			}
			n, err := fr.ReadLength()
			if err != nil || n != 5 {
				t.Fatalf("ReadLength after the error = %d, %v; want 5", n, err)
			}
			b, err := fr.ReadBody(n, nil)
			if err != nil || string(b.B) != "hello" {
				t.Fatalf("body %q, %v", b.B, err)
			}
		})
	}
}

// BenchmarkFrameReaderJPEG720p is the framed reader path for a 720p
// CompressedImage as cameras send them (~113 KB): the read-ahead copies
// part of each body twice, the rest is read straight into its buffer.
func BenchmarkFrameReaderJPEG720p(b *testing.B) { benchmarkFrames(b, 113_000) }
