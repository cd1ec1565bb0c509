package replay_test

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/jpeg"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/rosbag2/rosbag2test"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/replay"
)

// replayDaemon is a replay's daemon over a config file's text, its
// output in a temp dir.
func replayDaemon(t *testing.T, yaml string) *replay.Replay {
	t.Helper()
	cfg, err := config.Parse([]byte("robot_id: replay\n" + yaml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir, cfg.HTTP.Listen = t.TempDir(), "off"
	d, err := replay.New(cfg, replay.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestReplayGap: a bag of ten FSM messages a tenth of a second apart
// whose last is stamped far later (INT64_MAX, a year, a day) replays
// promptly: the gap ends the episode, is reported, and is not filled
// with episodes of max_duration (issue 21: endless for INT64_MAX, 434
// episodes in 20 s for a year, 25 empty ones for a day). A gap within
// replay.max_gap is walked through as before.
func TestReplayGap(t *testing.T) {
	const t0 = int64(1_700_000_000_000_000_000)
	for _, tc := range []struct {
		name           string
		last           int64
		maxGap         string
		gaps, episodes uint64
	}{
		{"int64 max", math.MaxInt64, "", 1, 2},
		{"a year", t0 + int64(365*24*time.Hour), "", 1, 2},
		{"a day", t0 + int64(24*time.Hour), "", 1, 2},
		{"a day within max_gap", t0 + int64(24*time.Hour), "replay: {max_gap: 24h}\n", 0, 25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at := map[int64]string{}
			for i := range int64(9) {
				at[t0+i*int64(100*time.Millisecond)] = "working"
			}
			at[tc.last] = "working"
			path := filepath.Join(t.TempDir(), "talker.db3")
			rosbag2test.WriteDB3(t, path, []rosbag2test.Topic{rosbag2test.StringTopic("/topic")}, rosbag2test.Strings("/topic", at)).Close()
			d := replayDaemon(t, "fsm: [{topic: /topic, type: string}]\n"+tc.maxGap)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			sum, err := d.Run(ctx, []string{path}, nil)
			if err != nil {
				t.Fatalf("replay: %v (%+v)", err, sum)
			}
			if uint64(len(sum.Gaps)) != tc.gaps || sum.Episodes != tc.episodes || sum.Messages != 10 {
				t.Fatalf("%d messages, gaps %v, %d episodes; want 10, %d gaps, %d episodes", sum.Messages, sum.Gaps, sum.Episodes, tc.gaps, tc.episodes)
			}
			if tc.gaps > 0 && (!sum.Gaps[0].From.Equal(time.Unix(0, t0+8*int64(100*time.Millisecond))) || !sum.Gaps[0].To.Equal(time.Unix(0, tc.last))) {
				t.Errorf("gap %v, want from the 9th message to the last", sum.Gaps[0])
			}
			if tc.gaps > 0 && !strings.Contains(sum.Gaps[0].String(), "no message for") {
				t.Errorf("gap reads %q", sum.Gaps[0])
			}
		})
	}
}

// cameraBag writes a .db3 of one camera's 64x48 JPEG frames at the given
// times (ns) and returns its path.
func cameraBag(t *testing.T, times ...int64) string {
	t.Helper()
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewGray(image.Rect(0, 0, 64, 48)), nil); err != nil {
		t.Fatal(err)
	}
	var msgs []rosbag2test.Message
	for _, at := range times {
		msgs = append(msgs, rosbag2test.Message{Topic: "/cam/compressed", Time: at, Data: rosbag2test.CompressedImage(at, "cam", "jpeg", jpg.Bytes())})
	}
	path := filepath.Join(t.TempDir(), "cam.db3")
	rosbag2test.WriteDB3(t, path, []rosbag2test.Topic{{Name: "/cam/compressed", Type: "sensor_msgs/msg/CompressedImage"}}, msgs).Close()
	return path
}

// TestReplayGapSessions: without an FSM, a camera's recording with a
// gap of a day longer than replay.max_gap gives one session before the
// gap and one after (it gave a session per max_duration of the gap,
// and took minutes).
func TestReplayGapSessions(t *testing.T) {
	const t0, day, s = int64(1_700_000_000_000_000_000), int64(24 * time.Hour), int64(time.Second)
	path := cameraBag(t, t0, t0+s, t0+day, t0+day+s)
	d := replayDaemon(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sum, err := d.Run(ctx, []string{path}, nil)
	if err != nil {
		t.Fatalf("replay: %v (%+v)", err, sum)
	}
	ids, err := os.ReadDir(filepath.Join(d.Pipeline().Config().DataDir, "episodes"))
	if err != nil {
		t.Fatal(err)
	}
	var sessions []string
	for _, e := range ids {
		if strings.HasSuffix(e.Name(), "-session") {
			sessions = append(sessions, e.Name())
		}
	}
	if len(sum.Gaps) != 1 || len(sessions) != 2 {
		t.Fatalf("gaps %v, sessions %v; want one gap and two sessions", sum.Gaps, sessions)
	}
}

// TestReplayStopsInALongStretch: a stretch within replay.max_gap is
// walked through tick by tick (sheets of a camera that sent nothing);
// a stop during it returns within a second.
func TestReplayStopsInALongStretch(t *testing.T) {
	const t0, s = int64(1_700_000_000_000_000_000), int64(time.Second)
	path := cameraBag(t, t0, t0+s, t0+23*int64(time.Hour))
	d := replayDaemon(t, "replay: {max_gap: 24h}\n")
	const stopAfter = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), stopAfter)
	defer cancel()
	start := time.Now()
	_, err := d.Run(ctx, []string{path}, nil)
	if took := time.Since(start); !errors.Is(err, context.DeadlineExceeded) || took > stopAfter+time.Second {
		t.Fatalf("replay: %v after %s; want the stop's error within a second of it", err, took)
	}
}
