package main

import (
	"strconv"
	"testing"

	"github.com/edged-robotics/edged/config"
)

// TestSheetFlagsDefaultToRun: `edged sheet` says it builds sheets
// exactly as edged run does, so its recipe flags default to the config
// file's sheet defaults (its --grace was 500ms while run used 1s).
func TestSheetFlagsDefaultToRun(t *testing.T) {
	r := config.Default().Sheet.Recipe()
	flags := newSheetCmd().Flags()
	for _, tc := range []struct{ flag, want string }{
		{"interval", r.Interval.String()},
		{"tile-width", strconv.Itoa(r.TileWidth)},
		{"columns", strconv.Itoa(r.Columns)},
		{"rows", strconv.Itoa(r.Rows)},
		{"quality", strconv.Itoa(r.Quality)},
		{"grace", r.Grace.String()},
	} {
		t.Run(tc.flag, func(t *testing.T) {
			f := flags.Lookup(tc.flag)
			if f == nil {
				t.Fatalf("no --%s flag", tc.flag)
			}
			if f.DefValue != tc.want {
				t.Errorf("--%s defaults to %s, edged run to %s", tc.flag, f.DefValue, tc.want)
			}
		})
	}
}
