package rosmsg

// Resolve parses typeName and every type it nests, each once, depth
// first, refusing cycles and nesting deeper than MaxNesting. text returns
// a type's own text (an error when there is none); build makes a
// dialect's definition from a parsed type and its resolved nested types
// (nested[i] for field i of kind KindMessage).
func Resolve[D any](d *Dialect, typeName string, text func(typeName string) (string, error),
	build func(p *Parsed, nested []D) (D, error)) (D, error) {
	r := &resolver[D]{d: d, text: text, build: build, done: map[string]D{}, busy: map[string]bool{}}
	return r.resolve(typeName, 0)
}

type resolver[D any] struct {
	d     *Dialect
	text  func(string) (string, error)
	build func(*Parsed, []D) (D, error)
	done  map[string]D
	busy  map[string]bool // types being resolved: a cycle is an error
}

func (r *resolver[D]) resolve(typeName string, depth int) (D, error) {
	var zero D
	if def, ok := r.done[typeName]; ok {
		return def, nil
	}
	if depth > MaxNesting {
		return zero, r.d.Errorf("types nest deeper than %d at %s", MaxNesting, typeName)
	}
	if r.busy[typeName] {
		return zero, r.d.Errorf("type %s contains itself", typeName)
	}
	text, err := r.text(typeName)
	if err != nil {
		return zero, err
	}
	r.busy[typeName] = true
	defer delete(r.busy, typeName)
	p, err := r.d.ParseText(typeName, text)
	if err != nil {
		return zero, err
	}
	nested := make([]D, len(p.Fields))
	for i, f := range p.Fields {
		if f.Kind != KindMessage {
			continue
		}
		if nested[i], err = r.resolve(f.Type, depth+1); err != nil {
			return zero, err
		}
	}
	def, err := r.build(p, nested)
	if err != nil {
		return zero, err
	}
	r.done[typeName] = def
	return def, nil
}

// MinSize is the least a message with these fields takes on the wire
// (no padding), which caps array counts before anything is allocated;
// nested(i) is the least size of field i's message type.
func MinSize(fields []Field, nested func(i int) int) int {
	n := 0
	for i, f := range fields {
		elem := 0
		if f.Kind == KindMessage {
			elem = nested(i)
		}
		elem = f.Kind.MinWire(elem)
		switch f.Array {
		case ArrayNone:
			n += elem
		case ArrayFixed:
			n += elem * f.Len
		default:
			n += 4
		}
		n = min(n, MaxFixedArray*8) // no overflow; such a message fails to decode anyway
	}
	return n
}
