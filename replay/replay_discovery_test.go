package replay_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/rosbag2/rosbag2test"
)

// TestReplayDiscoveryCapped: a bag's camera topics are input like a
// live graph's: without configured cameras a replay takes at most
// discovery.max_cameras of them (it took every one: a bag of a thousand
// camera topics made a thousand sheet builders).
func TestReplayDiscoveryCapped(t *testing.T) {
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}
	const t0 = int64(1_700_000_000_000_000_000)
	var topics []rosbag2test.Topic
	var msgs []rosbag2test.Message
	for c := range 6 {
		name := fmt.Sprintf("/cam%d/compressed", c)
		topics = append(topics, rosbag2test.Topic{Name: name, Type: "sensor_msgs/msg/CompressedImage"})
		for i := range 3 {
			at := t0 + int64(i)*int64(500*time.Millisecond)
			msgs = append(msgs, rosbag2test.Message{Topic: name, Time: at, Data: rosbag2test.CompressedImage(at, name, "jpeg", jpg.Bytes())})
		}
	}
	path := filepath.Join(t.TempDir(), "cams.db3")
	rosbag2test.WriteDB3(t, path, topics, msgs).Close()
	d := replayDaemon(t, "discovery: {max_cameras: 2}\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if sum, err := d.Run(ctx, []string{path}, nil); err != nil {
		t.Fatalf("replay: %v (%+v)", err, sum)
	}
	cams, err := filepath.Glob(filepath.Join(d.Pipeline().Config().DataDir, "episodes", "*", "sheets", "*"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, c := range cams {
		seen[filepath.Base(c)] = true
	}
	if len(seen) != 2 {
		entries, _ := os.ReadDir(filepath.Join(d.Pipeline().Config().DataDir, "episodes"))
		t.Fatalf("sheets of %d cameras (%v; episodes %v), want discovery.max_cameras = 2", len(seen), seen, entries)
	}
}
