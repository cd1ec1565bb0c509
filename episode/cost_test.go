package episode

import (
	"testing"
	"time"
)

// t0 is episodetest.T0, which the package's own tests cannot import.
var t0 = time.Unix(1776842526, 0).UTC()

// TestKnownTokens: a camera's announced tokens stand for its sheets'
// metadata, per kind of sheet, only when the files counted are exactly
// what was announced, of a closed episode, with plausible tokens.
func TestKnownTokens(t *testing.T) {
	end := t0.Add(10 * time.Second)
	closed := func(produced CameraCounts) *Manifest {
		return &Manifest{Start: t0, End: end, Closed: true, Produced: map[string]CameraCounts{"a": produced}}
	}
	announced := CameraCounts{Sheets: 2, LabelSheets: 1, Snippets: 2, SheetTokens: 1032, LabelTokens: 516}
	with := func(f func(c *CameraCounts)) CameraCounts { c := announced; f(&c); return c }
	tests := []struct {
		name           string
		m              *Manifest
		cam            string
		sheets, labels int
		contact, label int
	}{
		{"exactly what was announced", closed(announced), "a", 2, 1, 1032, 516},
		{"closed without an end time", &Manifest{Start: t0, Closed: true, Produced: map[string]CameraCounts{"a": announced}}, "a", 2, 1, 1032, 516},
		{"an older robot", closed(CameraCounts{Sheets: 2, LabelSheets: 1}), "a", 2, 1, -1, -1},
		{"more contact sheets than announced", closed(announced), "a", 3, 1, -1, 516},
		{"fewer labeling sheets than announced", closed(announced), "a", 2, 0, 1032, -1},
		{"a camera not announced", closed(announced), "b", 1, 0, -1, -1},
		{"labels without tokens", closed(with(func(c *CameraCounts) { c.LabelTokens = 0 })), "a", 2, 1, 1032, -1},
		{"negative tokens", closed(with(func(c *CameraCounts) { c.SheetTokens = -5 })), "a", 2, 1, -1, 516},
		{"fewer tokens than two sheets cost", closed(with(func(c *CameraCounts) { c.SheetTokens = 300 })), "a", 2, 1, -1, 516},
		{"more tokens than two sheets can cost", closed(with(func(c *CameraCounts) { c.SheetTokens = 1e12 })), "a", 2, 1, -1, 516},
		{"open", &Manifest{Start: t0, End: end, Produced: map[string]CameraCounts{"a": announced}}, "a", 2, 1, -1, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			contact, label := knownTokens(tt.m, tt.cam, tt.sheets, tt.labels)
			if contact != tt.contact || label != tt.label {
				t.Errorf("got %d %d, want %d %d", contact, label, tt.contact, tt.label)
			}
		})
	}
}
