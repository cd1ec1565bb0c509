package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"os"
	"path"
	"path/filepath"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/ros/msg"
)

// Caps of the clips' part of a report.
const (
	// MaxClips caps the clips shown; the others are named in a note.
	MaxClips = 100
	// MaxThumbBytes caps one clip's first frame inlined as its
	// thumbnail; a larger frame is not shown.
	MaxThumbBytes = 512 << 10
	// MaxClipReadBytes caps a clip read whole from an object store for
	// its thumbnail (a clip in a directory is read where it is, only
	// its summary and first chunk).
	MaxClipReadBytes = 256 << 20
	// maxClipChunkBytes caps one chunk of a clip the reader loads.
	maxClipChunkBytes = 64 << 20
)

// clipView is one incident clip on the page: at its trigger on the
// timeline, with its first camera frame and a link to the file.
type clipView struct {
	Anchor string
	Name   string
	Kind   string
	At     string // trigger, episode time
	Bytes  int64
	Href   string // the file, relative to the report when it can be
	Src    template.URL
	Thumb  string // why there is no thumbnail
	Where  string // where a clip held elsewhere is (no Href then)
	sec    float64
}

// readClips lists the episode's clips (view.Clips: those held beside
// it and those its manifest says are elsewhere) with their thumbnails,
// within the image budget left; a clip held elsewhere (on the robot, in
// an object store) says where instead.
func readClips(e *episode.Episode, o Options, left *int64) ([]*clipView, []string) {
	var out []*clipView
	var notes []string
	clips := view.Clips(e)
	for i, c := range clips {
		if i == MaxClips {
			notes = append(notes, fmt.Sprintf("%d more clips not shown; edged inspect %s lists them", len(clips)-MaxClips, e.Manifest.ID))
			break
		}
		v := &clipView{Anchor: fmt.Sprintf("clip-%d", i), Name: c.Name, Kind: c.Kind, Bytes: c.Bytes,
			sec: c.At.Sub(e.Manifest.Start).Seconds()}
		if c.Where != view.WhereHere {
			v.Where = elsewhere(c.Where, c.Name)
			out = append(out, v)
			continue
		}
		v.Href = clipHref(e, c.Name, o.OutDir)
		frame, err := firstFrame(e, c.Name, o)
		switch {
		case err != nil:
			v.Thumb = "no thumbnail: " + err.Error()
		case frame == nil:
			v.Thumb = "no camera frame in the clip"
		case int64(len(frame)) > min(MaxThumbBytes, *left):
			v.Thumb = fmt.Sprintf("first frame (%d bytes) over the image cap: not inlined", len(frame))
		default:
			*left -= int64(len(frame))
			v.Src = template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(frame))
		}
		out = append(out, v)
	}
	return out, notes
}

// elsewhere says where a clip not held beside the episode is.
func elsewhere(where, name string) string {
	if where == episode.ClipOnRobot {
		return "on the robot: edged clip fetch --from http://ROBOT:PORT " + name
	}
	return "uploaded to " + where
}

// clipHref links a clip: relative to the report's directory (outDir)
// when the episode is a local directory, else its name in the store.
func clipHref(e *episode.Episode, name, outDir string) string {
	p := filepath.Join(episode.ClipDir(e.Dir), name)
	if _, err := os.Stat(p); err != nil {
		return path.Join(e.Dir, episode.ClipsDir, name)
	}
	if outDir != "" {
		if abs, err := filepath.Abs(p); err == nil {
			if rel, err := filepath.Rel(outDir, abs); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return filepath.ToSlash(p)
}

// firstFrame returns the data of the first camera frame (a
// sensor_msgs/CompressedImage in JPEG) of a clip, nil when it has none.
func firstFrame(e *episode.Episode, name string, o Options) ([]byte, error) {
	opts := mcap.Options{MaxChunkBytes: maxClipChunkBytes, MaxCacheBytes: 2 * maxClipChunkBytes}
	r, err := mcap.Open(filepath.Join(episode.ClipDir(e.Dir), name), opts)
	if err != nil && o.Store != nil {
		b, _, gerr := o.Store.Get(path.Join(e.Manifest.ID, episode.ClipsDir, name), MaxClipReadBytes)
		if gerr != nil {
			return nil, gerr
		}
		r, err = mcap.NewReader(bytes.NewReader(b), int64(len(b)), name, opts)
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var topics []string
	for _, c := range r.Channels() {
		if c.Schema != nil && c.Schema.Name == msg.TypeCompressedImage {
			topics = append(topics, c.Topic)
		}
	}
	if len(topics) == 0 {
		return nil, nil
	}
	it := r.Messages(topics...)
	defer it.Close()
	for it.Next() {
		var img msg.CompressedImage
		if err := msg.DecodeCompressedImage(it.Message().Data, &img); err != nil || !bytes.HasPrefix(img.Data, []byte{0xFF, 0xD8, 0xFF}) {
			continue // not a JPEG: try the next frame
		}
		return bytes.Clone(img.Data), nil
	}
	return nil, it.Err()
}

// clips places the clips on the timeline (a lane of markers linking to
// each clip below) and in the summary.
func (p *page) clips() {
	if len(p.Clips) == 0 {
		return
	}
	ln := lane{Name: "clips", Title: plural(len(p.Clips), "incident clip")}
	mark := p.span / 200 // a marker wide enough to click
	for _, c := range p.Clips {
		c.At = p.clock(c.sec)
		ln.Bars = append(ln.Bars, p.bar(c.sec, c.sec+mark, "▶", clipColor, c.Kind+" clip at "+c.At, "#"+c.Anchor))
	}
	p.Lanes = append(p.Lanes, ln)
}

var clipColor = color{bg: "#c0392b", fg: "#ffffff"}
