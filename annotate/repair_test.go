package annotate

import (
	"reflect"
	"testing"

	"github.com/edged-robotics/edged/episode"
)

func TestParseSegments(t *testing.T) {
	type seg = episode.AnnotatedSegment
	sg := func(a, b float64, l string) seg { return seg{StartSec: a, EndSec: b, Subtask: l} }
	cases := []struct {
		name     string
		raw      string
		want     []seg
		repaired int
		invalid  bool
	}{
		{name: "clean", raw: `{"segments":[{"start_sec":0,"end_sec":2,"subtask":"a"},{"start_sec":2,"end_sec":5,"subtask":"b"}]}`,
			want: []seg{sg(0, 2, "a"), sg(2, 5, "b")}},
		{name: "fenced", raw: "```json\n{\"segments\":[{\"start_sec\":0,\"end_sec\":2,\"subtask\":\"a\"}]}\n```", want: []seg{sg(0, 2, "a")}},
		{name: "unsorted", raw: `{"segments":[{"start_sec":2,"end_sec":5,"subtask":"b"},{"start_sec":0,"end_sec":2,"subtask":"a"}]}`,
			want: []seg{sg(0, 2, "a"), sg(2, 5, "b")}, repaired: 1},
		{name: "clipped", raw: `{"segments":[{"start_sec":-1,"end_sec":2,"subtask":"a"},{"start_sec":8,"end_sec":12,"subtask":"b"}]}`,
			want: []seg{sg(0, 2, "a"), sg(8, 10, "b")}, repaired: 2},
		{name: "overlap", raw: `{"segments":[{"start_sec":0,"end_sec":3,"subtask":"a"},{"start_sec":2,"end_sec":5,"subtask":"b"},{"start_sec":2.5,"end_sec":4,"subtask":"c"}]}`,
			want: []seg{sg(0, 3, "a"), sg(3, 5, "b")}, repaired: 3},
		{name: "swapped", raw: `{"segments":[{"start_sec":4,"end_sec":1,"subtask":"a"}]}`, want: []seg{sg(1, 4, "a")}, repaired: 1},
		{name: "missing times", raw: `{"segments":[{"subtask":"a"},{"start_sec":1,"end_sec":4,"subtask":"b"}]}`, want: []seg{sg(1, 4, "b")}, repaired: 1},
		{name: "outside", raw: `{"segments":[{"start_sec":20,"end_sec":30,"subtask":"a"}]}`, invalid: true, repaired: 2},
		{name: "not JSON", raw: `the robot picks a cup`, invalid: true},
		{name: "empty", raw: `{"segments":[]}`, invalid: true},
		{name: "wrong shape", raw: `{"segments":"none"}`, invalid: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, repaired, invalid := parseSegments(c.raw, 10)
			if (invalid != "") != c.invalid || repaired != c.repaired || (!c.invalid && !reflect.DeepEqual(got, c.want)) {
				t.Fatalf("got %v, repaired %d, invalid %q; want %v, %d, invalid %v", got, repaired, invalid, c.want, c.repaired, c.invalid)
			}
		})
	}
}
