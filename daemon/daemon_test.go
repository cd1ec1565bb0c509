package daemon

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/chromium"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/ros/rostest"
	"github.com/edged-robotics/edged/sheet"
)

// TestRunRecordsTheSimEpisode plays the generated episode with `rosbag
// play --clock` into a real rosmaster and checks everything edged run
// makes of it: the FSM segments against the generator's truth, the
// sheets and labeling sheets, /metrics, /healthz and the status page.
func TestRunRecordsTheSimEpisode(t *testing.T) {
	if testing.Short() {
		t.Skip("integration test with rosmaster and rosbag play; skipped with -short")
	}
	rostest.Require(t, "rosmaster", "rosbag")
	tmp := t.TempDir()
	bag, truthPath := pipelinetest.SimBag(t, tmp)
	m := rostest.StartMaster(t)
	if err := m.Client("/test").SetParam(context.Background(), "/use_sim_time", true); err != nil {
		t.Fatal(err)
	}
	port := rostest.FreePort(t)
	broker := brokertest.Start(t, brokertest.Options{})
	sinkOut := filepath.Join(tmp, "sink")
	pipelinetest.StartSink(t, broker.URL, sinkOut)
	// queue_size holds the bag's 280 frames: a loaded machine that
	// starves capture for more than the default 8 (0.5 s) makes it drop
	// frames, counted, and the live sheets then differ from the replay's.
	cfg := parseConfig(t, fmt.Sprintf(`
robot_id: sim-01
data_dir: %s
ros: {master_uri: %q, host: 127.0.0.1, queue_size: 300}
cameras: [{topic: /camera/color/image_raw/compressed, name: top}]
joints: [{topic: /joint_states}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
http: {listen: "127.0.0.1:%d"}
uplink: {broker: %q, max_payload: 32KiB}
`, filepath.Join(tmp, "data"), m.URI, port, broker.URL))
	notified := notifySocket(t)
	t.Setenv("WATCHDOG_USEC", "400000")
	t.Setenv("WATCHDOG_PID", "")
	d, run := runDaemon(t, cfg, Options{Version: "test"})
	rostest.WaitFor(t, 20*time.Second, "edged capture running", func() bool { return d.capt.Load() != nil })

	play := rostest.Start(t, m.Env(), "rosbag", "play", "--clock", "-d", "1", "--quiet", bag)
	if err := play.Wait(90 * time.Second); err != nil {
		t.Fatalf("rosbag play: %v\n%s", err, play.Output())
	}
	store := filepath.Join(tmp, "data", "episodes")
	rostest.WaitFor(t, 10*time.Second, "the episode closed", func() bool {
		ms, err := episode.List(store)
		return err == nil && len(ms) == 1 && ms[0].Closed
	})
	// The sink holds the episode complete and acknowledges it: the
	// robot's store marks it uploaded.
	rostest.WaitFor(t, 30*time.Second, "the episode marked uploaded", func() bool {
		ms, err := episode.List(store)
		return err == nil && len(ms) == 1 && ms[0].Uploaded
	})
	base := "http://127.0.0.1:" + fmt.Sprint(port)
	checkHTTP(t, base)
	checkStatusPageInBrowser(t, base)
	checkNotified(t, notified, "READY=1\nSTATUS=recording", "WATCHDOG=1")

	run.stop(t)

	ep := pipelinetest.CheckRecorded(t, store, truthPath)
	sheetDir := filepath.Join(store, ep.Manifest.ID, "sheets", "top")
	pipelinetest.CheckUploaded(t, sinkOut, filepath.Join(store, ep.Manifest.ID), ep, "top", 2)

	// edged replay of the same bag makes the same sheets.
	replayOut := filepath.Join(tmp, "replay")
	rep := pipelinetest.ReplayBag(t, cfg, replayOut, bag)
	rms, err := episode.List(filepath.Join(replayOut, "episodes"))
	if err != nil || len(rms) != 1 || rep.Segments != 6 {
		t.Fatalf("replay: %+v episodes, %+v, %v", rms, rep, err)
	}
	sameSheets(t, sheetDir, filepath.Join(replayOut, "episodes", rms[0].ID, "sheets", "top"),
		ep.Manifest.Duration(), rms[0].Duration())
}

// sameSheets: the contact sheets in two directories use the same frames
// for every tile and are the same JPEG bytes, except where the episodes'
// ends differ: a String FSM state has no header, so live it is stamped
// with the /clock value at its arrival, and `rosbag play` publishes no
// /clock while it is behind schedule (a loaded machine). The last sheet
// may then hold tiles past the shorter episode's end in the longer one
// only: every tile both hold is the same.
func sameSheets(t *testing.T, live, replay string, liveDur, replayDur time.Duration) {
	t.Helper()
	a, _ := filepath.Glob(filepath.Join(live, "sheet-*.jpg"))
	b, _ := filepath.Glob(filepath.Join(replay, "sheet-*.jpg"))
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("live made %d sheets, replay %d (episodes of %v and %v)", len(a), len(b), liveDur, replayDur)
	}
	if d := (liveDur - replayDur).Abs(); d > time.Second {
		t.Fatalf("live episode %v, replay %v: ends %v apart", liveDur, replayDur, d)
	}
	shorter := min(liveDur, replayDur).Seconds() + 0.005 // sheet's endSlack
	for i := range a {
		ma, mb := readSheetMeta(t, a[i]), readSheetMeta(t, b[i])
		n := min(len(ma.Tiles), len(mb.Tiles))
		if len(ma.Tiles) != len(mb.Tiles) {
			extra := append(ma.Tiles[n:], mb.Tiles[n:]...)
			if i != len(a)-1 || extra[0].Seconds <= shorter {
				t.Fatalf("%s: live has %d tiles, replay %d (episodes of %v and %v)", filepath.Base(a[i]),
					len(ma.Tiles), len(mb.Tiles), liveDur, replayDur)
			}
		}
		for k := range n {
			if ma.Tiles[k].Stamp != mb.Tiles[k].Stamp || ma.Tiles[k].Seconds != mb.Tiles[k].Seconds {
				t.Errorf("%s tile %d: live %v at %.2fs, replay %v at %.2fs", filepath.Base(a[i]), k,
					ma.Tiles[k].Stamp, ma.Tiles[k].Seconds, mb.Tiles[k].Stamp, mb.Tiles[k].Seconds)
			}
		}
		ja, _ := os.ReadFile(a[i])
		jb, _ := os.ReadFile(b[i])
		if len(ma.Tiles) == len(mb.Tiles) && string(ja) != string(jb) {
			t.Errorf("%s: live and replay JPEGs differ", filepath.Base(a[i]))
		}
	}
}

// readSheetMeta reads the metadata beside a sheet's JPEG.
func readSheetMeta(t *testing.T, jpg string) sheet.Meta {
	t.Helper()
	var m sheet.Meta
	raw, err := os.ReadFile(strings.TrimSuffix(jpg, ".jpg") + ".json")
	if err == nil {
		err = json.Unmarshal(raw, &m)
	}
	if err != nil {
		t.Fatalf("%s: metadata: %v", filepath.Base(jpg), err)
	}
	return m
}

func checkHTTP(t *testing.T, base string) {
	t.Helper()
	get := func(path string) (int, string) {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/healthz"); code != 200 || !strings.Contains(body, `"ready":true`) {
		t.Errorf("/healthz: %d %s", code, body)
	}
	code, body := get("/metrics")
	cam := `{role="camera",topic="/camera/color/image_raw/compressed"}`
	if n := metric(body, "edged_topic_messages_total"+cam) + metric(body, "edged_topic_drops_total"+cam); n != 280 {
		t.Errorf("/metrics: %v camera messages received or dropped, the bag has 280", n)
	}
	if n := metric(body, "edged_sheet_build_seconds_count"); n != 2 {
		t.Errorf("/metrics: %v sheet build times observed, want 2", n)
	}
	if metric(body, "edged_mqtt_last_ack_timestamp_seconds") <= 0 {
		t.Errorf("/metrics: no MQTT acknowledgement time")
	}
	for _, want := range []string{
		`edged_segments_total 6`,
		`edged_sheets_total 2`,
		`edged_ros_master_up 1`,
	} {
		if code != 200 || !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if code, body := get("/"); code != 200 || !strings.Contains(body, "retreat") || !strings.Contains(body, `src="/sheet/0.jpg"`) {
		t.Errorf("status page: %d\n%s", code, body)
	}
	if code, body := get("/sheet/0.jpg"); code != 200 || !strings.HasPrefix(body, "\xff\xd8") {
		t.Errorf("/sheet/0.jpg: %d, %d bytes", code, len(body))
	}
}

// checkStatusPageInBrowser renders the status page in headless Chromium:
// the FSM state, the segments and the latest sheet, decoded.
func checkStatusPageInBrowser(t *testing.T, base string) {
	t.Helper()
	if _, err := chromium.Path(); err != nil {
		t.Logf("status page not checked in a browser: %v (Debian package chromium; make deps)", err)
		return
	}
	// VirtualTime stays under the page's 2 s meta refresh.
	p := chromium.PollPage(t, base+"/", chromium.Options{VirtualTime: time.Second}, 30*time.Second, func(p *chromium.Page) bool {
		return strings.Contains(p.DOM, `class="state">IDLE<`) && strings.Contains(p.DOM, "retreat") && p.ImagesLoaded > 0
	})
	if p.ImagesBroken != 0 {
		t.Errorf("status page: %d broken images; requests %v", p.ImagesBroken, p.Requests)
	}
	for _, r := range p.Requests {
		if !strings.HasSuffix(r, " 200") && !strings.HasSuffix(r, " 204") {
			t.Errorf("status page request failed: %s", r)
		}
	}
}

// checkNotified waits for each wanted systemd notification in turn.
func checkNotified(t *testing.T, ch <-chan string, want ...string) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for _, w := range want {
		for got := ""; got != w; {
			select {
			case got = <-ch:
			case <-deadline:
				t.Fatalf("systemd was never sent %q", w)
			}
		}
	}
}

// metric reads one sample's value from a Prometheus text exposition.
func metric(body, series string) float64 {
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return -1
}
