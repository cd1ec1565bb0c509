package rtl

import (
	"regexp"
	"strings"
)

// Node is a node of a parsed formula: And, Or, Not or Query.
type Node interface {
	String() string
	eval(t Trace, whole span) Result
}

// And holds when every operand holds.
type And struct{ Operands []Node }

// Or holds when some operand holds.
type Or struct{ Operands []Node }

// Not holds when its operand fails.
type Not struct{ Operand Node }

// Slice kinds.
const (
	AfterFirst  = "AfterFirst"
	BeforeFirst = "BeforeFirst"
	AfterLast   = "AfterLast"
	BeforeLast  = "BeforeLast"
)

// Step is one slice of a query: Kind (AfterFirst...) of Pattern.
type Step struct {
	Kind    string
	Pattern Pattern
}

// Query is tr.Step...Exists(Pattern).
type Query struct {
	Steps  []Step
	Exists Pattern
}

// Pattern matches elements: name and arguments are anchored regular
// expressions (see the package comment).
type Pattern struct {
	Source string // as written
	name   *regexp.Regexp
	args   []*regexp.Regexp
}

// Matches reports whether e matches p.
func (p Pattern) Matches(e Element) bool {
	if !p.name.MatchString(e.Name) || len(e.Args) < len(p.args) {
		return false
	}
	for i, a := range p.args {
		if !a.MatchString(e.Args[i]) {
			return false
		}
	}
	return true
}

func (p Pattern) String() string { return p.Source }

func (n *And) String() string { return join(n.Operands, " and ") }
func (n *Or) String() string  { return join(n.Operands, " or ") }
func (n *Not) String() string { return "not " + wrap(n.Operand) }

func (q *Query) String() string {
	var b strings.Builder
	b.WriteString("tr")
	for _, s := range q.Steps {
		b.WriteString("." + s.Kind + "(" + s.Pattern.Source + ")")
	}
	b.WriteString(".Exists(" + q.Exists.Source + ")")
	return b.String()
}

func join(ns []Node, sep string) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = wrap(n)
	}
	return strings.Join(parts, sep)
}

// wrap parenthesizes compound operands so that String parses back to
// the same tree.
func wrap(n Node) string {
	switch n.(type) {
	case *And, *Or:
		return "(" + n.String() + ")"
	}
	return n.String()
}
