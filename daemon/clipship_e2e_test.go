package daemon

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/internal/s3test"
	"github.com/edged-robotics/edged/ros/rostest"
)

// TestClipShippedEndToEnd: the whole shipping path of a clip. A live
// robot with clips.upload set to a real S3 server (versitygw) and its
// uplink to a real mosquitto and sink: a clip written while the store
// is down is listed in the sink's manifest on the robot; once the store
// is back the clip is uploaded, the manifest lists it at its s3:// URL
// (the uploader's OnUploaded hook, pipeline's clipUploaded), the object
// holds the bytes whose sha256 the manifest lists, the robot's copy is
// gone, and edged clip fetch gets it from the manifest's URL.
func TestClipShippedEndToEnd(t *testing.T) {
	srv := s3test.Start(t)
	srv.SetEnv(t)
	broker := brokertest.Start(t, brokertest.Options{})
	sinkOut := t.TempDir()
	pipelinetest.StartSink(t, broker.URL, sinkOut)
	store := srv.URL("fleet")
	r := startClipRunWith(t, "{enabled: true, pre: 5s, post: 2s, upload: "+store+"}", fmt.Sprintf("uplink: {broker: %q}", broker.URL))
	srv.Stop() // the upload waits: the sink's manifest says the clip is on the robot meanwhile

	a := requestWrittenClip(t, r)
	at, _, _ := episode.ParseClipName(a.Name)
	robot := waitSinkEntry(t, sinkOut, a.Episode, a.Name, episode.ClipOnRobot)
	if robot.Kind != string(clip.KindRequest) || !robot.At.Equal(at) || robot.Bytes != a.Bytes || len(robot.SHA256) != 64 {
		t.Errorf("the sink's entry of the clip on the robot: %+v; the clip: %+v", robot, a)
	}

	srv.Restart(t)
	url := store + "/" + episode.ClipKey(a.Episode, a.Name)
	up := waitSinkEntry(t, sinkOut, a.Episode, a.Name, url)
	if up.SHA256 != robot.SHA256 || up.Bytes != a.Bytes {
		t.Errorf("the sink's entry after the upload: %+v, before: %+v", up, robot)
	}
	st, err := s3.Open(context.Background(), store, s3.Options{Getenv: srv.Getenv})
	if err != nil {
		t.Fatal(err)
	}
	body, _, err := st.Get(episode.ClipKey(a.Episode, a.Name), 1<<30)
	if err != nil || fmt.Sprintf("%x", sha256.Sum256(body)) != up.SHA256 {
		t.Fatalf("the object at %s: %d bytes (%v), not the ones whose sha256 the manifest lists", url, len(body), err)
	}
	rostest.WaitFor(t, 20*time.Second, "the uploaded clip deleted on the robot", func() bool {
		_, err := os.Stat(a.Path)
		return os.IsNotExist(err)
	})
	// A field engineer fetches it from where the sink's manifest says.
	f := Fetch{From: up.Where, Dir: t.TempDir(), SHA256: map[string]string{a.Name: up.SHA256}, Getenv: srv.Getenv}
	if got, err := FetchClips(context.Background(), f); err != nil || len(got) != 1 {
		t.Fatalf("edged clip fetch --from %s: %+v, %v", up.Where, got, err)
	}
	checkFetched(t, f.Dir, a.Name, body)
	r.stop(t)
}

// waitSinkEntry waits until the sink's manifest of episode id lists
// clip name at where, and returns its entry.
func waitSinkEntry(t *testing.T, sinkOut, id, name, where string) episode.ClipEntry {
	t.Helper()
	var got episode.ClipEntry
	rostest.WaitFor(t, 60*time.Second, "the sink's manifest to list "+name+" at "+where, func() bool {
		e, err := episode.Load(episode.StoreDir(sinkOut), id)
		if err != nil {
			return false
		}
		for _, c := range e.Manifest.Clips {
			if c.Name == name && c.Where == where {
				got = c
				return true
			}
		}
		return false
	})
	return got
}
