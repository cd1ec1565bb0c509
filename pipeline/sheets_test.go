package pipeline_test

import (
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/pipelinetest"
	"github.com/edged-robotics/edged/report"
)

// TestLabelSheetsOnlyWhenShipped: the robot composes and stores a
// labeling sheet per segment only when it ships them
// (sheet.ship_label_sheets); otherwise it builds none, and the episode's
// readers (edged report here) compose them from the contact sheets, so
// the reported episode shows one per segment either way.
func TestLabelSheetsOnlyWhenShipped(t *testing.T) {
	tmp := t.TempDir()
	bagPath, _ := pipelinetest.SimBag(t, tmp)
	for _, ship := range []bool{false, true} {
		t.Run(fmt.Sprintf("ship_label_sheets=%v", ship), func(t *testing.T) {
			cfg, err := config.Parse(fmt.Appendf(nil, `
robot_id: sim-01
cameras: [{topic: %s, name: top}]
fsm: [{topic: /task/state, type: string, idle_states: [IDLE]}]
sheet: {ship_label_sheets: %v}
`, simCamera, ship))
			if err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(t.TempDir(), "out")
			pipelinetest.ReplayBag(t, cfg, out, bagPath)
			store := filepath.Join(out, episode.EpisodesDir)
			eps, err := episode.List(store)
			if err != nil || len(eps) != 1 {
				t.Fatalf("episodes %v, %v", eps, err)
			}
			ep, err := episode.Load(store, eps[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			stored, _ := filepath.Glob(filepath.Join(episode.LabelDir(ep.Dir, "top"), "*.jpg"))
			want := 0
			if ship {
				want = len(ep.Segments)
			}
			if len(stored) != want || len(ep.Segments) == 0 {
				t.Errorf("%d labeling sheets stored on the robot for %d segments, want %d", len(stored), len(ep.Segments), want)
			}
			sum, err := report.Write(io.Discard, ep.Dir, report.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if sum.LabelSheets != len(ep.Segments) {
				t.Errorf("the report shows %d labeling sheets for %d segments (notes %v)", sum.LabelSheets, len(ep.Segments), sum.Notes)
			}
		})
	}
}
