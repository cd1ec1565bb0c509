package report

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/msg"
)

// writeClip writes a clip of the episode, triggered at trigger, with
// bag/mcap's writer: a JointState channel (not a frame) and a camera
// whose frames are the given JPEGs, in log-time order from the
// trigger minus 2 s.
func (f *fixture) writeClip(t testing.TB, trigger float64, kind string, frames ...[]byte) string {
	t.Helper()
	dir := episode.ClipDir(f.epDir)
	must(t, os.MkdirAll(dir, 0o755))
	path := filepath.Join(dir, episode.ClipName(at(trigger), kind))
	var b bytes.Buffer
	w, err := mcap.NewWriter(&b, mcap.WriterOptions{Profile: "ros1"})
	must(t, err)
	img, err := w.AddSchema(msg.TypeCompressedImage, "ros1msg", []byte("std_msgs/Header header\nstring format\nuint8[] data\n"))
	must(t, err)
	js, err := w.AddSchema(msg.TypeJointState, "ros1msg", []byte("std_msgs/Header header\nstring[] name\n"))
	must(t, err)
	cam, err := w.AddChannel(img, "/cam/compressed", "ros1", nil)
	must(t, err)
	joints, err := w.AddChannel(js, "/joint_states", "ros1", nil)
	must(t, err)
	start := uint64(at(trigger - 2).UnixNano())
	must(t, w.WriteMessage(joints, 0, start, start, []byte{1, 2, 3}))
	for i, fr := range frames {
		ts := start + uint64(i+1)*uint64(100*time.Millisecond)
		must(t, w.WriteMessage(cam, uint32(i), ts, ts, compressedImage(fr)))
	}
	must(t, w.Close())
	must(t, os.WriteFile(path, b.Bytes(), 0o644))
	return path
}

// compressedImage is a ROS1 sensor_msgs/CompressedImage of a JPEG.
func compressedImage(data []byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 0)      // seq
	b = binary.LittleEndian.AppendUint64(b, 0)         // stamp
	b = binary.LittleEndian.AppendUint32(b, 0)         // frame_id
	b = binary.LittleEndian.AppendUint32(b, uint32(4)) // format
	b = append(b, "jpeg"...)                           //
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

// TestReportLinksClips: each clip is on the timeline at its trigger
// (from its name), with its first camera frame inlined as a thumbnail
// and a link to the file relative to the report; a clip without a
// frame, or whose first frame is over the cap, is linked without one.
func TestReportLinksClips(t *testing.T) {
	f := record(t, pickPlace, "")
	first, second := tinyJPEG(t, 2, 2, 16, 16, 1), tinyJPEG(t, 2, 2, 16, 16, 9)
	f.writeClip(t, 5, "state", first, second)
	f.writeClip(t, 20, "request") // no frame
	big := append(append([]byte{0xFF, 0xD8, 0xFF}, make([]byte, MaxThumbBytes)...), 0xFF, 0xD9)
	f.writeClip(t, 22, "outcome", big)

	out := filepath.Join(t.TempDir(), "report.html")
	s, err := WriteFile(out, f.epDir, Options{})
	must(t, err)
	b, err := os.ReadFile(out)
	must(t, err)
	page := html.UnescapeString(string(b)) // html/template writes '+' as &#43;
	if s.Clips != 3 {
		t.Fatalf("summary: %d clips, want 3", s.Clips)
	}
	for _, tc := range []struct{ what, want string }{
		{"thumbnail: the first frame", `src="data:image/jpeg;base64,` + base64.StdEncoding.EncodeToString(first) + `"`},
		{"marker at 5 s of 23.6 s", `style="left:21.1864%;`},
		{"marker links the clip", `href="#clip-0" title="state clip at`},
		{"no frame said", "no camera frame in the clip"},
		{"cap said", "over the image cap"},
	} {
		if !strings.Contains(page, tc.want) {
			t.Errorf("%s: %q not in the page", tc.what, tc.want)
		}
	}
	if strings.Contains(page, base64.StdEncoding.EncodeToString(second)) {
		t.Error("a later frame was inlined, not the first")
	}
	for _, name := range []string{episode.ClipName(at(5), "state"), episode.ClipName(at(20), "request")} {
		rel, err := filepath.Rel(filepath.Dir(out), filepath.Join(episode.ClipDir(f.epDir), name))
		must(t, err)
		if !strings.Contains(page, `href="`+filepath.ToSlash(rel)+`"`) {
			t.Errorf("no link to %s relative to the report (%s)", name, rel)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(out), rel)); err != nil {
			t.Errorf("the link does not lead to the clip: %v", err)
		}
	}
}

// TestReportShowsClipsElsewhere: clips a receiver's manifest lists but
// does not hold are on the timeline too, saying where they are (on the
// robot, to fetch; uploaded, with the URL), without a link.
func TestReportShowsClipsElsewhere(t *testing.T) {
	f := record(t, pickPlace, "")
	m, err := episode.ReadManifest(f.epDir)
	must(t, err)
	robot := episode.ClipEntry{Name: episode.ClipName(at(5), "state"), Kind: "state", At: at(5), Bytes: 7, Where: episode.ClipOnRobot}
	up := episode.ClipEntry{Name: episode.ClipName(at(9), "goal"), Kind: "goal", At: at(9), Bytes: 8, Where: "s3://fleet/clips/x.mcap"}
	m.Clips = []episode.ClipEntry{robot, up}
	b, err := episode.EncodeManifest(m)
	must(t, err)
	must(t, os.WriteFile(filepath.Join(f.epDir, episode.ManifestFile), b, 0o644))

	out := filepath.Join(t.TempDir(), "report.html")
	s, err := WriteFile(out, f.epDir, Options{})
	must(t, err)
	b, err = os.ReadFile(out)
	must(t, err)
	page := html.UnescapeString(string(b))
	if s.Clips != 2 {
		t.Fatalf("summary: %d clips, want 2", s.Clips)
	}
	for _, want := range []string{"on the robot: edged clip fetch --from http://ROBOT:PORT " + robot.Name,
		"uploaded to " + up.Where, `href="#clip-1" title="goal clip at`} {
		if !strings.Contains(page, want) {
			t.Errorf("%q not in the page", want)
		}
	}
	if strings.Contains(page, `href="s3:`) || strings.Contains(page, `href="`+robot.Name) {
		t.Error("a clip not held here is linked")
	}
}
