package uplink_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink/mqttconn"
	"github.com/edged-robotics/edged/uplink/wire"
)

// sheetFraming bounds the msgpack framing of one sheet body beyond its
// JPEG and metadata (wire.SheetBody): a 6-entry map header, the six
// field names (camera, index, segment, name, meta, jpeg: 31 bytes), two
// ints (at most 9 bytes each), two bin headers (at most 5 each) and the
// camera and name strings (each with a header of at most 5 bytes).
func sheetFraming(camera, name string) int64 {
	return 1 + 31 + 2*9 + 2*5 + int64(len(camera)+5) + int64(len(name)+5)
}

// TestCostMatchesTheWire: an episode shipped through mosquitto arrives
// complete, and the cost line of the sink's copy (in its manifest and
// from episode.ReadCost) matches the message bodies the sink received,
// per kind: snippets byte for byte (the sink writes the body as is),
// contact and labeling sheets up to the msgpack framing of each body
// (sheetFraming: the sink stores the JPEG and the metadata, not the
// field names and the camera and name strings around them).
func TestCostMatchesTheWire(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{})
	out := t.TempDir()
	r := startSink(t, b.URL, mqttconn.Auth{}, out)
	u := newUplink(t, t.TempDir(), b.URL, mqttconn.Auth{}, nil)
	defer u.Close()
	ep := epID("cost")
	mustNil(t, u.EpisodeStarted(manifest(ep, false)))
	var names []string
	for i := 1; i <= 3; i++ {
		mustNil(t, u.Segment(manifest(ep, false), segment(i-1)))
		s := fakeSheet(i, 40_000+7_000*i) // chunked: MaxPayload is 16 KiB
		s.Meta.Tokens = 516
		names = append(names, sheet.Name(s))
		mustNil(t, u.Sheet(ep, s))
	}
	lab := fakeSheet(9, 23_000)
	lab.Meta.Kind = "label"
	lab.Meta.Segment = &sheet.SegmentMeta{Index: 1}
	lab.Meta.Tokens = 258
	mustNil(t, u.LabelSheet(ep, 1, lab))
	mustNil(t, u.EpisodeEnded(manifest(ep, true))) // the shipper announces what it shipped
	const total = 1 + 3 + 3 + 3 + 1 + 1
	poll.Until(t, 20*time.Second, "all messages", func() bool { return r.count() == total })

	wireBytes := map[string]int64{}
	r.mu.Lock()
	for _, e := range r.got {
		wireBytes[e.Kind] += int64(max(int(e.Size), len(e.Body)))
	}
	r.mu.Unlock()

	dir := filepath.Join(out, episode.EpisodesDir, ep)
	ms, err := episode.List(filepath.Dir(dir))
	if err != nil || len(ms) != 1 || !ms[0].Complete || ms[0].Cost == nil {
		t.Fatalf("sink manifest: %+v %v", ms, err)
	}
	want := episode.CameraCounts{Sheets: 3, LabelSheets: 1, Snippets: 3, SheetTokens: 3 * 516, LabelTokens: 258, LastSheet: 3}
	if got := ms[0].Produced["camera_color"]; len(ms[0].Produced) != 1 || got != want {
		t.Errorf("produced at the sink %+v, want camera_color: %+v", ms[0].Produced, want)
	}
	c, err := episode.ReadCost(dir)
	mustNil(t, err)
	for _, got := range []episode.Cost{*ms[0].Cost, c} {
		if got.SnippetBytes != wireBytes[wire.KindSnippet] || got.Snippets != 3 {
			t.Errorf("snippets: cost %d bytes (%d files), wire %d", got.SnippetBytes, got.Snippets, wireBytes[wire.KindSnippet])
		}
		var slack int64
		for _, n := range names {
			slack += sheetFraming(lab.Meta.Camera, n)
		}
		if d := wireBytes[wire.KindSheet] - got.ContactBytes; d < 0 || d > slack {
			t.Errorf("contact sheets: wire %d bytes, cost %d: %d apart, framing allows 0..%d",
				wireBytes[wire.KindSheet], got.ContactBytes, d, slack)
		}
		if d := wireBytes[wire.KindLabelSheet] - got.LabelBytes; d < 0 || d > sheetFraming(lab.Meta.Camera, sheet.Name(lab)) {
			t.Errorf("labeling sheets: wire %d bytes, cost %d", wireBytes[wire.KindLabelSheet], got.LabelBytes)
		}
		if got.ContactSheets != 3 || got.LabelSheets != 1 || got.Cameras != 1 || got.Seconds != 60 ||
			got.ContactTokens != 3*516 || got.LabelSheetTokens != 258 {
			t.Errorf("cost %+v", got)
		}
	}
	t.Logf("wire bodies %v; cost %+v", wireBytes, c)
}
