package rtl

import (
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode"
)

// The grammar:
//
//	formula  = or
//	or       = and { ("or" | "||") and }
//	and      = unary { ("and" | "&&") unary }
//	unary    = ("not" | "!") unary | "(" formula ")" | query
//	query    = "tr" { "." slice "(" pattern ")" } "." "Exists" "(" pattern ")"
//	slice    = "AfterFirst" | "BeforeFirst" | "AfterLast" | "BeforeLast"
//	pattern  = atom [ "(" [ atom { "," atom } ] ")" ]
//	atom     = a bare regular expression (no space, comma or parenthesis)
//	         | a double-quoted string ("go (to|into)", \" and \\ escape)
//
// not binds tighter than and, and tighter than or, as in Python, whose
// syntax RTL borrows; parentheses group. Keywords are case-sensitive.

// Limits of Parse.
const (
	MaxFormulaBytes = 64 << 10
	MaxDepth        = 100 // nesting of not, and/or and parentheses
)

// Formula is a parsed RTL formula.
type Formula struct {
	Source string
	root   Node
}

// Root is the formula's syntax tree.
func (f *Formula) Root() Node { return f.root }

func (f *Formula) String() string { return f.root.String() }

// SyntaxError is a formula that does not parse: Line and Col (1-based,
// in runes) of where parsing stopped.
type SyntaxError struct {
	Line, Col int
	Msg       string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// Parse parses an RTL formula (the grammar is in the package comment).
func Parse(src string) (*Formula, error) {
	if len(src) > MaxFormulaBytes {
		return nil, &SyntaxError{Line: 1, Col: 1, Msg: fmt.Sprintf("formula of %d bytes is longer than %d: split it into several checks", len(src), MaxFormulaBytes)}
	}
	p := &parser{src: []rune(src)}
	root, err := p.or(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if !p.eof() {
		return nil, p.errorf("unexpected %s after the formula: join formulas with and/or", p.what())
	}
	return &Formula{Source: src, root: root}, nil
}

type parser struct {
	src []rune
	i   int
}

func (p *parser) eof() bool { return p.i >= len(p.src) }

func (p *parser) space() {
	for !p.eof() && unicode.IsSpace(p.src[p.i]) {
		p.i++
	}
}

// errorf is an error at the current position.
func (p *parser) errorf(format string, a ...any) error { return p.errorAt(p.i, format, a...) }

func (p *parser) errorAt(at int, format string, a ...any) error {
	line, col := 1, 1
	for _, r := range p.src[:min(at, len(p.src))] {
		if r == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, a...)}
}

// what names the next token for an error.
func (p *parser) what() string {
	if p.eof() {
		return "end of formula"
	}
	if w := p.peekWord(); w != "" {
		return fmt.Sprintf("%q", w)
	}
	return fmt.Sprintf("%q", string(p.src[p.i]))
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func (p *parser) peekWord() string {
	j := p.i
	for j < len(p.src) && isWord(p.src[j]) {
		j++
	}
	return string(p.src[p.i:j])
}

// accept consumes the keyword or symbol tok when it comes next.
func (p *parser) accept(tok string) bool {
	p.space()
	if isWord([]rune(tok)[0]) {
		if p.peekWord() != tok {
			return false
		}
	} else if !strings.HasPrefix(string(p.src[p.i:min(p.i+len(tok), len(p.src))]), tok) {
		return false
	}
	p.i += len([]rune(tok))
	return true
}

func (p *parser) expect(tok string) error {
	if !p.accept(tok) {
		return p.errorf("expected '%s', found %s", tok, p.what())
	}
	return nil
}

func (p *parser) or(depth int) (Node, error) {
	return p.list(depth, []string{"or", "||"}, p.and, func(ns []Node) Node { return &Or{Operands: ns} })
}

func (p *parser) and(depth int) (Node, error) {
	return p.list(depth, []string{"and", "&&"}, p.unary, func(ns []Node) Node { return &And{Operands: ns} })
}

// list parses operand { op operand } and makes one node of two or more.
func (p *parser) list(depth int, ops []string, operand func(int) (Node, error), build func([]Node) Node) (Node, error) {
	n, err := operand(depth)
	if err != nil {
		return nil, err
	}
	ns := []Node{n}
	for p.accept(ops[0]) || p.accept(ops[1]) {
		n, err := operand(depth)
		if err != nil {
			return nil, err
		}
		ns = append(ns, n)
	}
	if len(ns) == 1 {
		return n, nil
	}
	return build(ns), nil
}

func (p *parser) unary(depth int) (Node, error) {
	if depth >= MaxDepth {
		return nil, p.errorf("formula nests deeper than %d: flatten it", MaxDepth)
	}
	switch {
	case p.accept("not") || p.accept("!"):
		n, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &Not{Operand: n}, nil
	case p.accept("("):
		n, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		return n, p.expect(")")
	case p.accept("tr"):
		return p.query()
	}
	return nil, p.errorf("expected tr, not or '(', found %s", p.what())
}

// query parses what follows tr: slices, then Exists.
func (p *parser) query() (Node, error) {
	q := &Query{}
	for {
		if err := p.expect("."); err != nil {
			return nil, err
		}
		p.space()
		at, method := p.i, p.peekWord()
		p.i += len([]rune(method))
		switch method {
		case "Exists", AfterFirst, BeforeFirst, AfterLast, BeforeLast:
		default:
			return nil, p.errorAt(at, "unknown method %q: want Exists, AfterFirst, BeforeFirst, AfterLast or BeforeLast", method)
		}
		if err := p.expect("("); err != nil {
			return nil, err
		}
		pat, err := p.pattern()
		if err != nil {
			return nil, err
		}
		if err := p.expect(")"); err != nil {
			return nil, err
		}
		if method == "Exists" {
			q.Exists = pat
			return q, nil
		}
		q.Steps = append(q.Steps, Step{Kind: method, Pattern: pat})
	}
}

// pattern parses name[(args)].
func (p *parser) pattern() (Pattern, error) {
	p.space()
	start := p.i
	name, err := p.atom()
	if err != nil {
		return Pattern{}, err
	}
	pat := Pattern{name: name}
	if p.accept("(") && !p.accept(")") {
		for {
			a, err := p.atom()
			if err != nil {
				return Pattern{}, err
			}
			pat.args = append(pat.args, a)
			if p.accept(")") {
				break
			}
			if err := p.expect(","); err != nil {
				return Pattern{}, err
			}
		}
	}
	pat.Source = strings.TrimSpace(string(p.src[start:p.i]))
	return pat, nil
}

// atom parses a bare or quoted regular expression and compiles it
// anchored.
func (p *parser) atom() (*regexp.Regexp, error) {
	p.space()
	at := p.i
	var text string
	if !p.eof() && p.src[p.i] == '"' {
		s, err := p.quoted()
		if err != nil {
			return nil, err
		}
		text = s
	} else {
		for !p.eof() && !strings.ContainsRune(" \t\r\n,()", p.src[p.i]) {
			p.i++
		}
		text = string(p.src[at:p.i])
		if text == "" {
			return nil, p.errorf("expected a pattern (a name or a regular expression), found %s", p.what())
		}
	}
	re, err := regexp.Compile("^(?:" + text + ")$")
	if err != nil {
		return nil, p.errorAt(at, "bad regular expression %q: %v", text, unwrapRegexp(err))
	}
	return re, nil
}

// quoted reads a double-quoted string with \" and \\ escapes.
func (p *parser) quoted() (string, error) {
	at := p.i
	p.i++
	var b strings.Builder
	for !p.eof() {
		r := p.src[p.i]
		p.i++
		switch {
		case r == '"':
			return b.String(), nil
		case r == '\\' && !p.eof() && (p.src[p.i] == '"' || p.src[p.i] == '\\'):
			b.WriteRune(p.src[p.i])
			p.i++
		default:
			b.WriteRune(r)
		}
	}
	return "", p.errorAt(at, "unterminated string: close it with '\"'")
}

// unwrapRegexp keeps the reason of a regexp error without repeating the
// anchored expression edged made of it.
func unwrapRegexp(err error) string {
	var e *syntax.Error
	if errors.As(err, &e) {
		return string(e.Code)
	}
	return err.Error()
}
