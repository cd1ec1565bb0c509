package rtl

// A pattern's name and arguments are regular expressions (RE2), anchored
// at both ends. name(a1, ..., ak) matches an element whose name matches
// name and which has at least k arguments, argument i matching ai; any
// further arguments are free. A pattern without parentheses, or with
// empty ones, matches the name alone whatever the arguments. So
// goto(office) matches goto(office) and goto(office, fast) but not
// goto(office_2), goto or gotox(office).
//
// Each slice takes a sub-trace of the trace it is applied to, and
// excludes the matching element itself:
//
//	AfterFirst(e)   the elements strictly after the first match of e;
//	                no match: the empty trace
//	BeforeFirst(e)  the elements strictly before the first match of e;
//	                no match: the whole trace
//	AfterLast(e)    the elements strictly after the last match of e;
//	                no match: the empty trace
//	BeforeLast(e)   the elements strictly before the last match of e;
//	                no match: the whole trace
//
// This is what the paper's checks imply: "after the robot asked" holds of
// nothing when it never asked (so AfterFirst(ask).Exists(say) fails), and
// "before the robot went to the lobby" is all that happened when it never
// went (so not tr.BeforeFirst(goto(lobby)).Exists(pick) also fails
// when the robot picked and never went to the lobby). Exists(e) holds
// when some element of its trace matches e.

// Result is a formula's verdict over a trace, with what decided it.
type Result struct {
	Sat     bool
	Witness []Evidence
}

// Evidence is one query's outcome: the element that matched its Exists
// (Element >= 0, an index into the trace evaluated), or, when nothing
// matched, the sub-trace it searched (Searched; Element is -1).
type Evidence struct {
	Query    string `json:"query"`
	Found    bool   `json:"found"`
	Element  int    `json:"element"`
	Searched Span   `json:"searched"`
}

// Evaluate evaluates the formula over t.
func (f *Formula) Evaluate(t Trace) Result {
	return f.root.eval(t, Span{0, len(t)})
}

func (n *And) eval(t Trace, s span) Result {
	var all []Evidence
	for _, op := range n.Operands {
		r := op.eval(t, s)
		if !r.Sat {
			return Result{Sat: false, Witness: r.Witness}
		}
		all = append(all, r.Witness...)
	}
	return Result{Sat: true, Witness: all}
}

func (n *Or) eval(t Trace, s span) Result {
	var all []Evidence
	for _, op := range n.Operands {
		r := op.eval(t, s)
		if r.Sat {
			return Result{Sat: true, Witness: r.Witness}
		}
		all = append(all, r.Witness...)
	}
	return Result{Sat: false, Witness: all}
}

func (n *Not) eval(t Trace, s span) Result {
	r := n.Operand.eval(t, s)
	return Result{Sat: !r.Sat, Witness: r.Witness}
}

func (q *Query) eval(t Trace, s span) Result {
	for _, st := range q.Steps {
		s = slice(t, s, st)
	}
	ev := Evidence{Query: q.String(), Element: -1, Searched: s}
	for i := s.From; i < s.To; i++ {
		if q.Exists.Matches(t[i]) {
			ev.Found, ev.Element = true, i
			break
		}
	}
	return Result{Sat: ev.Found, Witness: []Evidence{ev}}
}

// slice applies one step to the sub-trace s of t (see the package
// comment for the rules).
func slice(t Trace, s span, st Step) span {
	first, last := -1, -1
	for i := s.From; i < s.To; i++ {
		if st.Pattern.Matches(t[i]) {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	switch st.Kind {
	case AfterFirst, AfterLast:
		if first < 0 {
			return span{s.To, s.To}
		}
		if st.Kind == AfterFirst {
			return span{first + 1, s.To}
		}
		return span{last + 1, s.To}
	default: // BeforeFirst, BeforeLast
		if first < 0 {
			return s
		}
		if st.Kind == BeforeFirst {
			return span{s.From, first}
		}
		return span{s.From, last}
	}
}
