package episode

import (
	"testing"
	"time"
)

// t0 is episodetest.T0, which the package's own tests cannot import.
var t0 = time.Unix(1776842526, 0).UTC()

// TestProducedTokens: the announced tokens stand for the sheets'
// metadata only when the files counted are exactly what was announced,
// of a closed episode, with plausible tokens for every camera.
func TestProducedTokens(t *testing.T) {
	end := t0.Add(10 * time.Second)
	closed := func(produced map[string]CameraCounts) *Manifest {
		return &Manifest{Start: t0, End: end, Closed: true, Produced: produced}
	}
	counts := CameraCounts{Sheets: 2, LabelSheets: 1, Snippets: 2}
	announced := CameraCounts{Sheets: 2, LabelSheets: 1, Snippets: 2, SheetTokens: 1032, LabelTokens: 516}
	with := func(f func(c *CameraCounts)) CameraCounts { c := announced; f(&c); return c }
	one := map[string]CameraCounts{"a": counts}
	tests := []struct {
		name           string
		m              *Manifest
		held           map[string]CameraCounts
		contact, label int
		ok             bool
	}{
		{"exactly what was announced", closed(map[string]CameraCounts{"a": announced}), one, 1032, 516, true},
		{"two cameras", closed(map[string]CameraCounts{"a": announced,
			"b": {Sheets: 2, Snippets: 2, SheetTokens: 516}}),
			map[string]CameraCounts{"a": counts, "b": {Sheets: 2, Snippets: 2}}, 1548, 516, true},
		{"an older robot", closed(one), one, 0, 0, false},
		{"more files than announced", closed(map[string]CameraCounts{"a": announced}),
			map[string]CameraCounts{"a": {Sheets: 3, LabelSheets: 1, Snippets: 2}}, 0, 0, false},
		{"fewer files than announced", closed(map[string]CameraCounts{"a": announced}),
			map[string]CameraCounts{"a": {Sheets: 2, Snippets: 2}}, 0, 0, false},
		{"a camera not announced", closed(map[string]CameraCounts{"a": announced}),
			map[string]CameraCounts{"a": counts, "b": {Sheets: 1}}, 0, 0, false},
		{"labels without tokens", closed(map[string]CameraCounts{"a": with(func(c *CameraCounts) { c.LabelTokens = 0 })}), one, 0, 0, false},
		{"tokens of a camera without sheets", closed(map[string]CameraCounts{"a": announced, "b": {SheetTokens: 1000}}), one, 0, 0, false},
		{"negative tokens", closed(map[string]CameraCounts{"a": with(func(c *CameraCounts) { c.SheetTokens = -5 })}), one, 0, 0, false},
		{"fewer tokens than two sheets cost", closed(map[string]CameraCounts{"a": with(func(c *CameraCounts) { c.SheetTokens = 300 })}), one, 0, 0, false},
		{"more tokens than two sheets can cost", closed(map[string]CameraCounts{"a": with(func(c *CameraCounts) { c.SheetTokens = 1e12 })}), one, 0, 0, false},
		{"open", &Manifest{Start: t0, End: end, Produced: map[string]CameraCounts{"a": announced}}, one, 0, 0, false},
		{"closed without an end time", &Manifest{Start: t0, Closed: true, Produced: map[string]CameraCounts{"a": announced}}, one, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			contact, label, ok := producedTokens(tt.m, tt.held)
			if contact != tt.contact || label != tt.label || ok != tt.ok {
				t.Errorf("got %d %d %v, want %d %d %v", contact, label, ok, tt.contact, tt.label, tt.ok)
			}
		})
	}
}
