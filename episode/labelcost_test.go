package episode_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/episodetest"
)

// TestLabelingTokens: the cost line counts the tokens to show every
// segment's labeling image once per camera (issue 9's budget), whether
// the robot shipped the segment's labeling sheet or the cloud composes
// it from the contact sheets (one VLM tile, 258 tokens). An episode
// whose robot shipped no labeling sheets counted 0 labeling tokens.
func TestLabelingTokens(t *testing.T) {
	const sheets, segments = 3, 4
	for _, tc := range []struct {
		name    string
		shipped int // labeling sheets shipped per camera, of 258 tokens each
		cameras int
	}{
		{"none shipped (composed in the cloud)", 0, 1},
		{"none shipped, two cameras", 0, 2},
		{"all shipped (an older robot)", segments, 1},
		{"some shipped", 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			m := episode.Manifest{Format: episode.ManifestFormat, ID: "ep", Robot: "arm-01", Start: episodetest.T0,
				End: episodetest.T0.Add(sheets * 10 * time.Second), Closed: true, Segments: segments}
			b, _ := json.Marshal(m)
			episodetest.Put(t, filepath.Join(dir, episode.ManifestFile), b)
			for c := range tc.cameras {
				cam := fmt.Sprintf("cam%d", c)
				for i := 1; i <= sheets; i++ {
					episodetest.Put(t, filepath.Join(dir, episode.SheetsDir, cam, episode.SheetName(i)+".json"),
						episodetest.SheetJSON(1120, 504, 516, 20*(i-1), 20))
				}
				for i := range tc.shipped {
					episodetest.Put(t, filepath.Join(dir, episode.LabelsDir, cam, episode.LabelName(i)+".json"),
						episodetest.SheetJSON(672, 252, 258, 0, 5))
				}
			}
			c, err := episode.ReadCost(dir)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.cameras * segments * 258
			if c.LabelTokens != want || c.ContactTokens != tc.cameras*sheets*516 || c.Tokens != c.ContactTokens+want {
				t.Errorf("labeling %d tokens, contact %d, total %d; want labeling %d (one image of 258 per segment and camera)",
					c.LabelTokens, c.ContactTokens, c.Tokens, want)
			}
			if c.LabelSheetTokens != tc.cameras*tc.shipped*258 {
				t.Errorf("shipped labeling sheets' tokens %d, want %d", c.LabelSheetTokens, tc.cameras*tc.shipped*258)
			}
		})
	}
}
