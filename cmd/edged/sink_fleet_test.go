package main

import (
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/score/fleet"
)

// TestSinkShowsFleetView: `edged sink --listen` serves the fleet view of
// its store at /fleet and as edged_fleet_* series labelled by model,
// prompt version and mode on /metrics, computed by its own refresh (an
// annotation written meanwhile shows at the next one), not per scrape.
func TestSinkShowsFleetView(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{})
	store, ids := twoModelStore(t)
	addr, p := startSink(t, "--broker", b.URL, "--out", filepath.Dir(store), "--fleet-every", "200ms")
	want := []string{
		`edged_fleet_episodes 2`,
		`edged_fleet_annotations{mode="segment",model="gem",prompt_version="seg-v1"} 2`,
		`edged_fleet_invalid_annotations{mode="segment",model="gem",prompt_version="seg-v1"} 1`,
		`edged_fleet_segment_f1{kind="pooled",mode="segment",model="gpt",prompt_version="seg-v1"} 1`,
		`edged_fleet_cost_usd{mode="segment",model="gpt",prompt_version="seg-v1"} 0.02`,
	}
	metricsHave := func(want []string) func() bool {
		return func() bool {
			_, m := get(t, "http://"+addr+"/metrics")
			for _, w := range want {
				if !strings.Contains(m, "\n"+w+"\n") {
					return false
				}
			}
			return true
		}
	}
	poll.Until(t, 15*time.Second, "the fleet view on /metrics", metricsHave(want))

	// A third model annotates one episode: the next refresh shows it.
	late := annotation("llava", 0, demoSegs)
	must(t, episode.PutAnnotation(blob.Dir{Root: store}, ids[0], annotationName(late), late))
	poll.Until(t, 15*time.Second, "the new annotation on /metrics", metricsHave([]string{
		`edged_fleet_group_episodes{mode="segment",model="llava",prompt_version="seg-v1"} 1`}))

	code, body := get(t, "http://"+addr+"/fleet")
	var v struct {
		Refreshed time.Time     `json:"refreshed"`
		View      fleet.Summary `json:"view"`
	}
	if err := json.Unmarshal([]byte(body), &v); code != http.StatusOK || err != nil || len(v.View.Groups) != 3 || v.Refreshed.IsZero() {
		t.Errorf("/fleet: %d %v\n%s", code, err, body)
	}
	if code, body := get(t, "http://"+addr+"/fleet?format=text"); code != http.StatusOK || !strings.Contains(body, "llava@seg-v1") {
		t.Errorf("/fleet?format=text: %d\n%s", code, body)
	}
	p.Stop(10 * time.Second)
	if err := p.Wait(time.Second); err != nil || strings.Contains(p.Output(), "level=ERROR") {
		t.Errorf("the sink did not stop cleanly: %v\n%s", err, p.Output())
	}
}
