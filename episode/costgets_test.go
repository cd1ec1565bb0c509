package episode_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/blobtest"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/episodetest"
)

// TestCostGets: one episode read (episode.LoadBlobs) of an episode of many
// sheets reads the metadata of no sheet whose tokens are known: what
// its robot announced, per camera and kind of sheet, or the cost line
// the receiver that completed it wrote; only an episode without a time
// reads its last sheet per camera. (Every sheet's metadata was read,
// a GET each on an object store, unless every camera's files were
// exactly the announced ones.)
func TestCostGets(t *testing.T) {
	const sheets, labels = 40, 6
	end := episodetest.T0.Add(time.Duration(sheets*10) * time.Second)
	announced := episode.CameraCounts{Sheets: sheets, LabelSheets: labels, SheetTokens: sheets * 516, LabelTokens: labels * 258}
	older := episode.CameraCounts{Sheets: sheets, LabelSheets: labels}
	stored := &episode.Cost{ContactSheets: 2 * sheets, LabelSheets: 2 * labels, ContactTokens: 2 * sheets * 516, LabelSheetTokens: 2 * labels * 258}
	for _, tc := range []struct {
		name     string
		m        episode.Manifest
		lacking  bool // camera b lacks its last contact sheet
		maxMetas int  // sheet metadata read
	}{
		{"announced", episode.Manifest{End: end, Closed: true, Produced: map[string]episode.CameraCounts{"a": announced, "b": announced}}, false, 0},
		{"an older robot's, complete with its cost line",
			episode.Manifest{End: end, Closed: true, Complete: true, Cost: stored, Produced: map[string]episode.CameraCounts{"a": older, "b": older}}, false, 0},
		{"closed without an end time", episode.Manifest{Closed: true, Produced: map[string]episode.CameraCounts{"a": announced, "b": announced}}, false, 2},
		{"one camera lacks a sheet", episode.Manifest{End: end, Closed: true, Produced: map[string]episode.CameraCounts{"a": announced, "b": announced}}, true, sheets - 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := blob.Dir{Root: t.TempDir()}
			tc.m.Format, tc.m.Robot, tc.m.Start = episode.ManifestFormat, "arm-01", episodetest.T0
			b, err := json.Marshal(tc.m)
			if err != nil {
				t.Fatal(err)
			}
			putBlob(t, store, "ep/"+episode.ManifestFile, b)
			for _, cam := range []string{"a", "b"} {
				n := sheets
				if tc.lacking && cam == "b" {
					n--
				}
				for i := 1; i <= n; i++ {
					putBlob(t, store, fmt.Sprintf("ep/sheets/%s/%s.jpg", cam, episode.SheetName(i)), []byte("\xff\xd8 a sheet"))
					putBlob(t, store, fmt.Sprintf("ep/sheets/%s/%s.json", cam, episode.SheetName(i)), episodetest.SheetJSON(1120, 504, 516, 20*(i-1), 20))
				}
				for i := range labels {
					putBlob(t, store, fmt.Sprintf("ep/labels/%s/%s.json", cam, episode.LabelName(i)), episodetest.SheetJSON(672, 252, 258, 0, 5))
				}
			}
			c := blobtest.NewCounting(store)
			e, err := episode.LoadBlobs(c, "ep")
			if err != nil {
				t.Fatal(err)
			}
			metas, gets := 0, 0
			for name, n := range c.Gets {
				gets += n
				if strings.HasSuffix(name, ".json") && name != episode.ManifestFile {
					metas += n
				}
			}
			wantSheets := 2 * sheets
			if tc.lacking {
				wantSheets--
			}
			if metas > tc.maxMetas || e.Cost.ContactSheets != wantSheets || e.Cost.ContactTokens != wantSheets*516 ||
				e.Cost.LabelSheetTokens != 2*labels*258 || e.Cost.LabelTokens != 2*labels*258 || e.Cost.Seconds != float64(sheets*10) || len(e.Problems) != 0 {
				t.Errorf("%d sheet metadata read (at most %d), cost %+v, problems %v", metas, tc.maxMetas, e.Cost, e.Problems)
			}
			t.Logf("%d GETs (%d of sheet metadata) for %d sheets", gets, metas, wantSheets+2*labels)
		})
	}
}

func putBlob(t *testing.T, b blob.Blobs, name string, body []byte) {
	t.Helper()
	if _, err := b.Put(name, body, blob.Cond{}); err != nil {
		t.Fatal(err)
	}
}
