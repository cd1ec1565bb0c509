package sheet

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/edged-robotics/edged/ringbuf"
)

// MaxStampLines caps a stamps file.
const MaxStampLines = 10_000_000

// ParseStamps reads one stamp in seconds per line (blank lines and lines
// starting with # are skipped). Stamps may be absolute (ROS time) or
// relative; they are returned as times since the Unix epoch.
func ParseStamps(r io.Reader) ([]time.Time, error) {
	var out []time.Time
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if len(out) >= MaxStampLines {
			return nil, fmt.Errorf("stamps: more than %d stamps", MaxStampLines)
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > 1e11 {
			return nil, fmt.Errorf("stamps line %d: %q is not a time in seconds", line, s)
		}
		sec, frac := math.Modf(v)
		out = append(out, time.Unix(int64(sec), int64(math.Round(frac*1e9))))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("stamps: %w", err)
	}
	return out, nil
}

// FPSStamps returns n stamps at fps frames per second from time 0.
func FPSStamps(n int, fps float64) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = time.Unix(0, 0).Add(time.Duration(math.Round(float64(i) * 1e9 / fps)))
	}
	return out
}

// Summary is what BuildFiles did; it is written as sheets.json.
type Summary struct {
	IntervalSeconds float64 `json:"interval_seconds"`
	TileWidth       int     `json:"tile_width"`
	Columns         int     `json:"columns"`
	Rows            int     `json:"rows"`
	Quality         int     `json:"quality"`
	Frames          int     `json:"frames"`
	Ticks           uint64  `json:"ticks"`
	Placeholders    uint64  `json:"placeholders"`
	Refused         uint64  `json:"refused_frames"`
	TotalBytes      int     `json:"total_bytes"`
	TotalTokens     int     `json:"total_vlm_tokens"`
	Sheets          []Meta  `json:"sheets"`
}

// imageOf reads a JPEG or PNG file into a Frame stamped t.
func frameOf(path string, t time.Time, maxBytes int64) (capture.Frame, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return capture.Frame{}, err
	}
	if fi.Size() > maxBytes {
		return capture.Frame{}, fmt.Errorf("%s: %d bytes is more than the %d byte limit", path, fi.Size(), maxBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return capture.Frame{}, err
	}
	f := capture.Frame{Topic: path, Stamp: t, Received: t, Data: data}
	switch {
	case bytes.HasPrefix(data, []byte{0xFF, 0xD8}):
		f.Format, f.Encoding = capture.FormatJPEG, "jpeg"
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		f.Format, f.Encoding = capture.FormatPNG, "png"
	default:
		f.Format, f.Encoding = capture.FormatJPEG, "jpeg" // let the decoder name the problem
	}
	return f, nil
}

// BuildFiles builds contact sheets offline from image files in the order
// given, frame i stamped stamps[i] (episode start: stamps[0]), writing
// sheet-NNNN.jpg/.json and sheets.json under outDir. Frames that cannot
// be decoded become placeholders and are counted in Refused.
func BuildFiles(paths []string, stamps []time.Time, r Recipe, camera, outDir string) (*Summary, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no frames given")
	}
	if len(stamps) != len(paths) {
		return nil, fmt.Errorf("%d frames but %d stamps", len(paths), len(stamps))
	}
	w, err := NewDirWriter(outDir)
	if err != nil {
		return nil, err
	}
	ring, err := ringbuf.New(ringbuf.Config{MaxBytes: 512 << 20, MaxAge: 2*r.Interval + r.Grace, MaxFrames: 8192})
	if err != nil {
		return nil, err
	}
	sum := &Summary{IntervalSeconds: r.Interval.Seconds(), TileWidth: r.TileWidth, Columns: r.Columns, Rows: r.Rows, Quality: r.Quality, Frames: len(paths)}
	b, err := NewBuilder(BuilderConfig{Camera: camera, Recipe: r, Start: stamps[0], Source: ring, NoTileCache: true,
		Emit: func(s *Sheet) error { return writeAndSum(w, s, sum) }})
	if err != nil {
		return nil, err
	}
	defer b.Close()
	newest, err := feedFiles(b, ring, paths, stamps)
	if err != nil {
		return nil, err
	}
	if err := b.Finish(newest); err != nil {
		return nil, err
	}
	st := b.Stats()
	sum.Ticks, sum.Placeholders = st.Ticks, st.Placeholders
	sum.Refused = st.Corrupt + st.TooLarge + st.Unsupported + st.BadLayout
	if err := writeSummary(sum, outDir); err != nil {
		return nil, err
	}
	return sum, nil
}

// writeAndSum writes one sheet and adds it to sum.
func writeAndSum(w *DirWriter, s *Sheet, sum *Summary) error {
	if err := w.Write(s); err != nil {
		return err
	}
	m := s.Clone().Meta
	sum.Sheets = append(sum.Sheets, m)
	sum.TotalBytes += m.Bytes
	sum.TotalTokens += m.Tokens
	return nil
}

// feedFiles reads each file into the ring as a frame at its stamp,
// advancing the builder as it goes, and returns the newest stamp.
func feedFiles(b *Builder, ring *ringbuf.Ring, paths []string, stamps []time.Time) (time.Time, error) {
	newest := stamps[0]
	for i, p := range paths {
		f, err := frameOf(p, stamps[i], 256<<20)
		if err != nil {
			return time.Time{}, fmt.Errorf("frame %d: %w", i+1, err)
		}
		// Advance before Put: the ticks Advance(t) settles only need frames
		// older than t, and Put(t) may evict frames older than t - MaxAge.
		if stamps[i].After(newest) {
			newest = stamps[i]
		}
		if err := b.Advance(newest); err != nil {
			return time.Time{}, err
		}
		if err := ring.Put(&f); err != nil {
			return time.Time{}, fmt.Errorf("frame %d (%s): %w", i+1, p, err)
		}
	}
	return newest, nil
}

// writeSummary writes sum as outDir/sheets.json.
func writeSummary(sum *Summary, outDir string) error {
	js, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(filepath.Join(outDir, "sheets.json"), append(js, '\n'))
}

// String is the one-line summary the CLI prints.
func (s *Summary) String() string {
	return fmt.Sprintf("%d frames -> %d ticks (%d placeholders, %d refused) -> %d sheets, %d bytes, %d VLM tokens",
		s.Frames, s.Ticks, s.Placeholders, s.Refused, len(s.Sheets), s.TotalBytes, s.TotalTokens)
}
