package score

import (
	"encoding/json"
	"strings"
	"testing"
)

// Mixed units with no usable rate: the message names each side's real
// unit and the flag that fixes it (it used to say "truth is in seconds"
// whatever the truth was in, because the failed conversion replaced it).
func TestUnitMismatchNamesEachSide(t *testing.T) {
	steps := Segmentation{Unit: Steps, Segments: []Segment{{0, 29, "idle"}, {30, 64, "reach"}}}
	secs := Segmentation{Segments: []Segment{{0, 1, "idle"}, {1, 65.0 / 30, "reach"}}}
	for _, tc := range []struct {
		name        string
		truth, pred Segmentation
		rate        float64
		want        []string
	}{
		{"steps truth, no rate", steps, secs, 0, []string{"truth is in integer steps", "prediction in seconds", "--rate HZ", "truth's step rate"}},
		{"steps prediction, no rate", secs, steps, 0, []string{"truth is in seconds", "prediction in integer steps", "--rate HZ", "prediction's step rate"}},
		{"negative rate", steps, secs, -5, []string{"truth is in integer steps", "prediction in seconds", "--rate -5 is not"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Score(tc.truth, tc.pred, Options{Rate: tc.rate})
			if err == nil {
				t.Fatal("mixed units scored without a rate")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// The open-ended >=20s bucket has no upper bound: its JSON says so by
// leaving max_sec out (it used to say max_sec 0, a bucket of nothing),
// every other bucket's max_sec is the next one's min_sec, and the text
// names the buckets by the same bounds.
func TestOpenEndedBucket(t *testing.T) {
	ref := Segmentation{Segments: []Segment{{0, 1, "a"}, {1, 4, "b"}, {4, 12, "c"}, {12, 40, "d"}}}
	r, err := Score(ref, ref, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Buckets []map[string]any `json:"recall_by_duration"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	wantNames := []string{"<2s", "2-5s", "5-10s", "10-20s", ">=20s"}
	if len(doc.Buckets) != len(wantNames) {
		t.Fatalf("%d buckets: %s", len(doc.Buckets), b)
	}
	for k, bk := range doc.Buckets {
		if bk["name"] != wantNames[k] {
			t.Errorf("bucket %d named %v, want %s", k, bk["name"], wantNames[k])
		}
		max, has := bk["max_sec"]
		if k == len(wantNames)-1 {
			if has {
				t.Errorf("open-ended bucket %v has max_sec %v, want no max_sec", bk["name"], max)
			}
			if bk["min_sec"] != 20.0 || bk["reference"] != 1.0 || bk["recall"] != 1.0 {
				t.Errorf("open-ended bucket %v", bk)
			}
			continue
		}
		if !has || max != doc.Buckets[k+1]["min_sec"] {
			t.Errorf("bucket %v: max_sec %v, want the next bucket's min_sec %v", bk["name"], max, doc.Buckets[k+1]["min_sec"])
		}
	}
	var text strings.Builder
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "  >=20s   1.000  (1 of 1)") {
		t.Errorf("text does not show the open-ended bucket as >=20s:\n%s", text.String())
	}
}
