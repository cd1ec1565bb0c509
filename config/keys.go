package config

import (
	"errors"
	"reflect"
	"strings"
)

// IsKey reports whether path names a setting of the file: a dotted YAML
// path of the schema (sheet.tile_width), list entries indexed
// (fsm[0].type), anything below a map's key accepted (ros2.qos). It is
// the test of "every validation error names the YAML key": a
// *FieldError's Field must be one.
func IsKey(path string) bool {
	t := reflect.TypeFor[Config]()
	for seg := range strings.SplitSeq(path, ".") {
		name, index, _ := strings.Cut(seg, "[")
		f, ok := yamlField(t, name)
		if !ok {
			return false
		}
		t = f.Type
		if index != "" {
			if t.Kind() != reflect.Slice || !strings.HasSuffix(index, "]") {
				return false
			}
			t = t.Elem()
		}
		if t.Kind() == reflect.Map {
			return true
		}
	}
	return true
}

// yamlField finds the field of struct type t whose YAML name is name.
func yamlField(t reflect.Type, name string) (reflect.StructField, bool) {
	if t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); tag == name && name != "" && name != "-" {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// ProblemsWithoutKey returns the problems of err (a *ValidationError or
// any errors.Join tree, as daemon's and pipeline's Check return) that
// are not a *FieldError naming a key of the file (IsKey): none when
// every validation error names its YAML key, which the tests of config
// and of the packages applying the components' rules assert.
func ProblemsWithoutKey(err error) []error {
	var out []error
	for _, p := range unjoinAll(err) {
		var fe *FieldError
		if !errors.As(p, &fe) || !IsKey(fe.Field) {
			out = append(out, p)
		}
	}
	return out
}
