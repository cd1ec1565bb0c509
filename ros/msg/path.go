package msg

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/edged-robotics/edged/rosmsg"
)

// ErrPath is wrapped by Get errors: the path does not exist in the value.
var ErrPath = errors.New("no such field")

// Get returns the value at path, a dotted field path with optional
// indexes: "status.phase", "status_list[0].text", "position[-1]" (negative
// indexes count from the end). The result has the Go types documented on
// Value.
func (v *Value) Get(path string) (any, error) {
	steps, err := parsePath(path)
	if err != nil {
		return nil, err
	}
	var cur any = v
	for i, s := range steps {
		if s.field != "" {
			sv, ok := cur.(*Value)
			if !ok || sv == nil {
				return nil, fmt.Errorf("%w: %s: %s is not a message", ErrPath, path, prefix(steps, i))
			}
			x, ok := sv.Field(s.field)
			if !ok {
				return nil, fmt.Errorf("%w: %s: %s has no field %q", ErrPath, path, sv.Def.Type, s.field)
			}
			cur = x
			continue
		}
		cur, err = index(cur, s.index)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %s%v", ErrPath, path, prefix(steps, i), err)
		}
	}
	return cur, nil
}

type step struct {
	field string
	index int
}

// ParsePath checks a field path's syntax without a value, e.g. for
// config validation.
func ParsePath(path string) error {
	_, err := parsePath(path)
	return err
}

func parsePath(path string) ([]step, error) {
	var steps []step
	rest := path
	for rest != "" {
		switch {
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("field path %q: missing ]", path)
			}
			n, err := strconv.Atoi(rest[1:end])
			if err != nil {
				return nil, fmt.Errorf("field path %q: index %q is not an integer", path, rest[1:end])
			}
			steps = append(steps, step{index: n})
			rest = rest[end+1:]
		default:
			if rest[0] == '.' && len(steps) > 0 {
				rest = rest[1:]
			}
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			if !rosmsg.ValidName(rest[:end]) {
				return nil, fmt.Errorf("field path %q: bad field name %q", path, rest[:end])
			}
			steps = append(steps, step{field: rest[:end]})
			rest = rest[end:]
		}
	}
	if len(steps) == 0 {
		return nil, fmt.Errorf("field path is empty")
	}
	return steps, nil
}

func prefix(steps []step, n int) string {
	var b strings.Builder
	for i, s := range steps[:n] {
		if s.field != "" {
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.field)
		} else {
			fmt.Fprintf(&b, "[%d]", s.index)
		}
	}
	if b.Len() == 0 {
		return "message"
	}
	return b.String()
}

// index indexes any of the array types a Value holds.
func index(arr any, i int) (any, error) {
	rv := reflect.ValueOf(arr)
	if rv.Kind() != reflect.Slice {
		return nil, fmt.Errorf(" is not an array")
	}
	n := rv.Len()
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return nil, fmt.Errorf(" has %d elements, no index %d", n, i)
	}
	return rv.Index(i).Interface(), nil
}
