package episode

import "testing"

func TestIsComplete(t *testing.T) {
	has3 := func(i int) bool { return i < 3 }
	cams := map[string]CameraCounts{"cam": {Sheets: 2, LabelSheets: 3, Snippets: 2}}
	for _, tc := range []struct {
		name string
		m    Manifest
		want bool
	}{
		{"open", Manifest{Segments: 3, Held: &Held{Segments: 3}}, false},
		{"closed, all segments, nothing announced", Manifest{Closed: true, Segments: 3, Held: &Held{Segments: 3}}, true},
		{"a segment missing", Manifest{Closed: true, Segments: 4, Held: &Held{Segments: 3}}, false},
		{"other indexes held", Manifest{Closed: true, Segments: 4, Held: &Held{Segments: 4}}, false},
		{"all announced held", Manifest{Closed: true, Segments: 3, Produced: cams, Held: &Held{Segments: 3, Cameras: cams}}, true},
		{"a labeling sheet missing", Manifest{Closed: true, Segments: 3, Produced: cams,
			Held: &Held{Segments: 3, Cameras: map[string]CameraCounts{"cam": {Sheets: 2, LabelSheets: 2, Snippets: 2}}}}, false},
		{"a camera missing", Manifest{Closed: true, Segments: 3, Produced: cams, Held: &Held{Segments: 3}}, false},
		{"huge announced count", Manifest{Closed: true, Segments: 1 << 60, Held: &Held{Segments: 3}}, false},
		{"no holdings", Manifest{Closed: true}, false},
	} {
		if got := IsComplete(&tc.m, has3); got != tc.want {
			t.Errorf("%s: complete %v, want %v", tc.name, got, tc.want)
		}
	}
}
