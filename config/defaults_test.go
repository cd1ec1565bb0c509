package config

import (
	"testing"

	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/sheet/recipe"
)

// TestDefaultsAreTheComponents: the defaults config documents (Default)
// are each component's own, so that a section left out of the file
// configures the component exactly as the component's defaults would.
func TestDefaultsAreTheComponents(t *testing.T) {
	d := Default()
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		// sheet.grace was 1s here and 500ms in the recipe (issue 22)
		{"sheet", d.Sheet.Recipe(), recipe.Default()},
		// ring was 256MiB/30s here and 64MiB/10s in ringbuf (issue 22)
		{"ring", ringbuf.Config{MaxBytes: int(d.Ring.MaxBytes), MaxAge: d.Ring.MaxAge.D()}, ringbuf.Config{
			MaxBytes: ringbuf.DefaultMaxBytes, MaxAge: ringbuf.DefaultMaxAge}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("config's default %+v, the component's %+v", tc.got, tc.want)
			}
		})
	}
}
