package daemon

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/s3test"
	"github.com/edged-robotics/edged/ros/rostest"
)

// TestRunUploadsClips: with clips.upload set, a clip the live daemon
// writes (POST /clip) is handed to the uploader, lands in the object
// store at its path in the episode layout with the clip's bytes, is
// deleted locally once confirmed, and /metrics counts the upload.
func TestRunUploadsClips(t *testing.T) {
	srv := s3test.Start(t)
	srv.SetEnv(t)
	r := startClipRun(t, "{enabled: true, pre: 5s, post: 2s, upload: "+srv.URL("fleet")+"}")
	a := requestWrittenClip(t, r)
	body, err := os.ReadFile(a.Path)
	if err != nil { // read before the uploader deletes it: poll instead when it raced
		body = nil
	}
	base := "http://" + r.addr
	rostest.WaitFor(t, 60*time.Second, "the clip uploaded (/metrics)", func() bool {
		return metric(scrape(t, base), `edged_clips_uploads_total{result="uploaded"}`) == 1
	})
	st, err := s3.Open(context.Background(), srv.URL("fleet"), s3.Options{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := st.Get(episode.ClipKey(a.Episode, a.Name), 1<<30)
	if err != nil || int64(len(got)) != a.Bytes || (body != nil && string(got) != string(body)) {
		t.Fatalf("the stored clip: %d bytes (%v), want the clip's %d", len(got), err, a.Bytes)
	}
	if _, err := os.Stat(a.Path); err == nil {
		t.Errorf("the uploaded clip %s is still on the robot (keep_uploaded is false)", filepath.Base(a.Path))
	}
	if m := scrape(t, base); metric(m, "edged_clips_upload_bytes_total") != float64(a.Bytes) || metric(m, "edged_clips_upload_queue") != 0 {
		t.Errorf("upload metrics:\n%s", grepLines(m, "edged_clips_upload"))
	}
	r.stop(t)
}

func scrape(t *testing.T, base string) string {
	t.Helper()
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
