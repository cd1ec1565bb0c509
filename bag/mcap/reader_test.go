package mcap

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/internal/sampledata"
)

func readAll(t *testing.T, data []byte) (*Reader, []string, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), int64(len(data)), "test.mcap", Options{})
	if err != nil {
		return nil, nil, err
	}
	var got []string
	it := r.Messages()
	defer it.Close()
	for it.Next() {
		got = append(got, string(it.Message().Data))
	}
	return r, got, it.Err()
}

// TestOrder: overlapping chunks (zstd, lz4, none) merge into log-time
// order, through the summary or by a scan.
func TestOrder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		summary bool
	}{{"indexed", true}, {"scanned", false}} {
		t.Run(tc.name, func(t *testing.T) {
			r, got, err := readAll(t, sample(tc.summary))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, " ") != "a10 a20 a30 a40 a50" {
				t.Errorf("order %v", got)
			}
			in := r.Info()
			if in.Indexed != tc.summary || in.Chunks != 3 || in.Compression["lz4"] != 1 || len(in.Problems) != 0 {
				t.Errorf("info %+v", in)
			}
			if ch := r.Channels(); len(ch) != 1 || ch[0].Schema == nil || ch[0].Schema.Name != "std_msgs/msg/String" {
				t.Errorf("channels %+v", ch)
			}
		})
	}
}

// TestDamage: a file cut short gives what precedes the cut and a
// problem naming an offset; a damaged chunk ends the iterator with a
// CorruptError naming the chunk's offset, after the messages before it.
func TestDamage(t *testing.T) {
	full := sample(true)
	t.Run("truncated", func(t *testing.T) {
		cut := full[:bytes.Index(full, []byte("a20"))+1]
		r, got, err := readAll(t, cut)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, " ") != "a10 a30" || len(r.Info().Problems) == 0 || !strings.Contains(strings.Join(r.Info().Problems, ";"), "offset") {
			t.Errorf("got %v, problems %v", got, r.Info().Problems)
		}
	})
	t.Run("corrupt chunk", func(t *testing.T) {
		bad := bytes.Clone(full)
		i := bytes.Index(bad, []byte("a50"))
		bad[i] = 'X' // the uncompressed chunk's CRC no longer matches
		_, got, err := readAll(t, bad)
		var ce *CorruptError
		if !errors.As(err, &ce) || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "CRC") {
			t.Fatalf("err %v", err)
		}
		if len(got) != 4 {
			t.Errorf("got %v before the damage", got)
		}
	})
	t.Run("not mcap", func(t *testing.T) {
		if _, _, err := readAll(t, []byte("#ROSBAG V2.0\n")); !errors.Is(err, ErrCorrupt) {
			t.Errorf("err %v", err)
		}
	})
}

// TestRealDamage: the G1 MCAP file cut in half is read up to the cut;
// with a chunk's bytes overwritten the iterator stops at that chunk.
func TestRealDamage(t *testing.T) {
	data, err := os.ReadFile(sampledata.Path(t, "ros2/g1_ep29_mcap/g1_ep29_mcap_0.mcap"))
	if err != nil {
		t.Fatal(err)
	}
	r, got, err := readAll(t, data[:len(data)/2])
	if err != nil || r.Info().Indexed || len(got) == 0 || len(got) >= 670 || len(r.Info().Problems) == 0 {
		t.Fatalf("cut: %d messages, err %v, info %+v", len(got), err, r.Info())
	}
	bad := bytes.Clone(data)
	for i := len(data) / 2; i < len(data)/2+64; i++ {
		bad[i] ^= 0xff
	}
	_, got, err = readAll(t, bad)
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "offset") || len(got) == 0 || len(got) >= 670 {
		t.Fatalf("corrupt chunk: %d messages, err %v", len(got), err)
	}
	t.Logf("cut: %d messages; corrupt chunk: %d messages, then %v", len(r.Info().Problems), len(got), err)
}

// TestStreamedZstdChunk: a zstd chunk as a streaming compressor writes
// it (no content size in the frame, a window of 8 MiB) decompresses,
// however small (issue 21: "window size exceeded" for 200 bytes), while
// a chunk that decompresses to more than its header says (a bomb) is
// refused without decompressing past the header's size.
func TestStreamedZstdChunk(t *testing.T) {
	s, c := schemaRec(1, "std_msgs/msg/String", "string data"), channelRec(1, 1, "/a")
	w := newWriter()
	w.chunk("zstd-stream", 10, 20, s, c, messageRec(1, 10, "a10"), messageRec(1, 20, "a20"))
	_, got, err := readAll(t, w.finish(true, s, c))
	if err != nil || strings.Join(got, " ") != "a10 a20" {
		t.Fatalf("streamed zstd chunk: %v, %v; want a10 a20", got, err)
	}

	// a bomb: 64 MiB of zeros in a frame without content size, in a
	// chunk whose header says 200 bytes
	bomb := streamZstd(make([]byte, 64<<20), 8<<20)
	w = newWriter()
	body := rec{}.u64(10).u64(10).u64(200).u32(0).str("zstd")
	body = append(body.u64(uint64(len(bomb))), bomb...)
	off := w.buf.Len()
	w.buf.Write(record(opChunk, body))
	w.indexes = append(w.indexes, record(opChunkIndex, rec{}.u64(10).u64(10).u64(uint64(off)).u64(uint64(w.buf.Len()-off)).
		u32(0).u64(0).str("zstd").u64(uint64(len(bomb))).u64(200)))
	_, got, err = readAll(t, w.finish(true, s, c))
	var ce *CorruptError
	if !errors.As(err, &ce) || len(got) != 0 {
		t.Fatalf("bomb: %v, %v; want a CorruptError", got, err)
	}
}
