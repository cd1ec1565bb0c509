// Command costbench measures issue 9's cost budget: an episode with a
// segment every 12 s is built from real camera frames through the
// robot's pipeline (camera ring, sheet builder, labeling sheets, the
// uplink's snippet recorder and wire encoding) and received by the
// sink's receive.Receiver; the cost line of the sink's copy (episode.
// ReadCost: what was shipped, everything included) is printed per
// camera-hour next to the budget, for the published recipe and the
// low-cost preset, and it exits 1 when a figure is over its budget
// (after printing its RESULT lines for make bench's table).
// scripts/bench-cost.sh runs it on the frames of
// ../shared/data/pan720p.mp4.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/edged-robotics/edged/sheet"
)

// budget per camera-hour of one recipe (issue 9).
type budget struct {
	preset string
	recipe sheet.Recipe
	bytes  float64 // shipped bytes per camera-hour
	tokens float64 // VLM tokens per camera-hour
}

func budgets() []budget {
	return []budget{
		{sheet.PresetPublished, sheet.DefaultRecipe(), 65e6, 265_000},
		{sheet.PresetLowCost, sheet.LowCostRecipe(), 35e6, 175_000},
	}
}

func main() {
	dir := flag.String("frames", "", "directory of JPEG frames (f0001.jpg...), played in order at -fps, cycled")
	minutes := flag.Float64("minutes", budgetEpisode.Duration.Minutes(), "episode length in minutes")
	fps := flag.Float64("fps", budgetEpisode.FPS, "camera rate of the frames")
	flag.Parse()
	frames, err := readFrames(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "costbench:", err)
		os.Exit(2)
	}
	p := budgetEpisode
	p.Duration, p.FPS = time.Duration(*minutes*float64(time.Minute)), *fps
	fmt.Printf("episode: %.1f min, a segment every %s, 1 camera (%d frames of %s cycled at %.0f fps), %d joints at %.0f Hz\n",
		p.Duration.Minutes(), p.Segment, len(frames), *dir, p.FPS, p.Joints, p.JointHz)
	over := false
	for _, b := range budgets() {
		out, err := os.MkdirTemp("", "costbench")
		if err != nil {
			fmt.Fprintln(os.Stderr, "costbench:", err)
			os.Exit(2)
		}
		c, _, err := buildEpisode(out, frames, b.recipe, p)
		os.RemoveAll(out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "costbench:", err)
			os.Exit(2)
		}
		over = report(os.Stdout, b, c) || over
	}
	if over {
		fmt.Println("OVER BUDGET (see above)")
		os.Exit(1)
	}
}

// report prints one preset's figures next to its budget; over is true
// when a figure exceeds it.
func report(w *os.File, b budget, c episode.Cost) (over bool) {
	h := c.Seconds * float64(c.Cameras) / 3600
	per := func(n int64) float64 { return float64(n) / h / 1e6 }
	mark := func(v, max float64) string {
		if v > max {
			over = true
			return "OVER"
		}
		return "ok"
	}
	fmt.Fprintf(w, "%-9s per camera-hour: %6.1f MB shipped (budget %2.0f MB, %s): contact sheets %.1f, labeling sheets %.1f, snippets %.1f, other %.2f MB\n",
		b.preset, c.BytesPerCameraHour/1e6, b.bytes/1e6, mark(c.BytesPerCameraHour, b.bytes),
		per(c.ContactBytes), per(c.LabelBytes), per(c.SnippetBytes), per(c.OtherBytes))
	fmt.Fprintf(w, "%-9s per camera-hour: %7.0f VLM tokens (budget %d, %s): contact sheets %.0f (%d sheets), labeling images %.0f "+
		"(one a segment; %d labeling sheets shipped, the rest composed in the cloud)\n",
		b.preset, c.TokensPerCameraHour, int(b.tokens), mark(c.TokensPerCameraHour, b.tokens),
		float64(c.ContactTokens)/h, c.ContactSheets, float64(c.LabelTokens)/h, c.LabelSheets)
	// make bench's table (bench/benchtable): each figure against its budget
	fmt.Fprintf(w, "RESULT cost-%s-MB-per-camera-hour %.1fMB %.0fMB %.3f <=1.0\n", b.preset,
		c.BytesPerCameraHour/1e6, b.bytes/1e6, c.BytesPerCameraHour/b.bytes)
	fmt.Fprintf(w, "RESULT cost-%s-tokens-per-camera-hour %.0f %.0f %.3f <=1.0\n", b.preset,
		c.TokensPerCameraHour, b.tokens, c.TokensPerCameraHour/b.tokens)
	return over
}

// readFrames reads every .jpg of dir, in name order.
func readFrames(dir string) ([][]byte, error) {
	if dir == "" {
		return nil, fmt.Errorf("-frames is required")
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.jpg"))
	sort.Strings(paths)
	if len(paths) == 0 {
		return nil, fmt.Errorf("no .jpg frames in %s", dir)
	}
	var out [][]byte
	for _, p := range paths {
		b, err := fsutil.ReadFileCapped(p, 32<<20)
		if err != nil {
			return nil, err
		}
		out = append(out, b)
	}
	return out, nil
}
