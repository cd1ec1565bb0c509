package episode

import (
	"errors"
	"io/fs"
	"reflect"
	"testing"

	"github.com/edged-robotics/edged/blob"
)

func TestAnnotationRoundTrip(t *testing.T) {
	b := blob.Dir{Root: t.TempDir()}
	name := AnnotationName("gpt-4o/mini", "seg-v1", ModeOnTruth, "/cam/top")
	if name != "gpt-4o_mini@seg-v1.on_truth.cam_top" {
		t.Fatalf("name %q", name)
	}
	if _, err := GetAnnotation(b, "ep1", name); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("absent: %v", err)
	}
	a := Annotation{Model: "m", Segments: []AnnotatedSegment{{0, 1.5, "pick cup"}}, Requests: 2}
	if err := PutAnnotation(b, "ep1", name, a); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "a/b", "..", `a\b`} {
		if err := PutAnnotation(b, "ep1", bad, a); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
	got, err := GetAnnotation(b, "ep1", name)
	if err != nil || !reflect.DeepEqual(got, a) {
		t.Fatalf("got %+v, %v", got, err)
	}
	names, err := Annotations(b, "ep1")
	if err != nil || !reflect.DeepEqual(names, []string{name}) {
		t.Fatalf("names %v, %v", names, err)
	}
	if names, err := Annotations(b, "ep2"); err != nil || names != nil {
		t.Fatalf("no annotations: %v, %v", names, err)
	}
}
