package rtl

import (
	"fmt"
	"strings"
)

// Element is one step of a trace.
type Element struct {
	Name string
	Args []string
	// What the witness shows beside the element; evaluation ignores it.
	Start, End float64 // seconds since the episode start
	Label      string  // the recorded state, when it differs from Name(Args)
}

func (e Element) String() string {
	if len(e.Args) == 0 {
		return e.Name
	}
	return e.Name + "(" + strings.Join(e.Args, ", ") + ")"
}

// Trace is a sequence of elements in the order they happened.
type Trace []Element

// ParseElement reads a recorded state as an element: `ask(lunch)` is ask
// with the argument lunch, `goto(office, fast)` has two, `"x, y"` quotes
// an argument holding a comma. Anything not of the form name(args) is a
// name without arguments, as it stands (a state is never refused).
func ParseElement(s string) Element {
	s = strings.TrimSpace(s)
	open := strings.IndexByte(s, '(')
	if open <= 0 || !strings.HasSuffix(s, ")") {
		return Element{Name: s}
	}
	args, ok := splitArgs(s[open+1 : len(s)-1])
	if !ok {
		return Element{Name: s}
	}
	return Element{Name: strings.TrimSpace(s[:open]), Args: args}
}

// CheckElement reports whether s is written as an element: a name, or
// name(args) with a well-formed argument list. ParseElement reads any
// state, but a rules file's map is written for the checks, and a typo
// there (goto(office) would silently make an element no pattern
// matches.
func CheckElement(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("empty element: give the RTL element the state stands for, e.g. goto(office)")
	}
	if el := ParseElement(s); strings.ContainsAny(el.Name, `()"`) {
		return fmt.Errorf("%q is not an element: want name or name(arg, ...), arguments without parentheses, \"quoted\" when they hold a comma", s)
	}
	return nil
}

// splitArgs splits on commas outside double quotes, trimming spaces and
// unquoting; false when the text is not a plain argument list.
func splitArgs(s string) ([]string, bool) {
	if strings.TrimSpace(s) == "" {
		return nil, true
	}
	var out []string
	var cur strings.Builder
	quoted, inQuote := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQuote && c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case c == '"':
			if !inQuote && strings.TrimSpace(cur.String()) == "" {
				cur.Reset() // spaces before an opening quote
			}
			inQuote, quoted = !inQuote, true
		case inQuote:
			cur.WriteByte(c)
		case c == ',':
			out = append(out, argText(cur.String(), quoted))
			cur.Reset()
			quoted = false
		case c == '(' || c == ')':
			return nil, false
		case quoted && (c == ' ' || c == '\t'):
			// spaces after a closing quote
		default:
			cur.WriteByte(c)
		}
	}
	if inQuote {
		return nil, false
	}
	return append(out, argText(cur.String(), quoted)), true
}

func argText(s string, quoted bool) string {
	if quoted {
		return s
	}
	return strings.TrimSpace(s)
}

// Span is a contiguous part [From, To) of the trace evaluated.
type Span struct {
	From int `json:"from"`
	To   int `json:"to"`
}

type span = Span

func (s Span) String() string { return fmt.Sprintf("[%d,%d)", s.From, s.To) }
