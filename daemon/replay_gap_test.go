package daemon

import (
	"context"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/bag/rosbag2/rosbag2test"
	"github.com/edged-robotics/edged/config"
)

// replayDaemon is a replay's daemon over a config file's text, its
// output in a temp dir.
func replayDaemon(t *testing.T, yaml string) *Daemon {
	t.Helper()
	cfg, err := config.Parse([]byte("robot_id: replay\n" + yaml))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir, cfg.HTTP.Listen = t.TempDir(), "off"
	d, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
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
			sum, err := d.Replay(ctx, []string{path}, nil)
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
