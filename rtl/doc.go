// Package rtl is the RoboEval Temporal Language (RTL, from CodeBotler /
// RoboEval, Hu et al.) over execution traces: a lexer and parser with
// positions, the AST, and an evaluator that returns a verdict with its
// witness. It is pure (no I/O, no edged imports) and sits at layer 0;
// package tracecheck turns recorded episodes into traces and rules files
// into checks.
//
// # Traces and elements
//
// A trace is a sequence of elements in the order they happened. An
// element is a name and zero or more arguments: the state recorded as
// `ask(lunch)` is the element ask with the argument lunch (ParseElement).
//
// # Grammar
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
//
// # Matching
//
// A pattern's name and arguments are regular expressions (RE2), anchored
// at both ends. name(a1, ..., ak) matches an element whose name matches
// name and which has at least k arguments, argument i matching ai; any
// further arguments are free. A pattern without parentheses, or with
// empty ones, matches the name alone whatever the arguments. So
// goto(office) matches goto(office) and goto(office, fast) but not
// goto(office_2), goto or gotox(office).
//
// # Slices
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
//
// # Witnesses
//
// Evaluate returns the verdict (SAT or UNSAT) and the queries that
// decided it: for a query that holds, the element that matched; for one
// that fails, the sub-trace it searched. and is decided by its first
// failing operand (or all, when it holds); or by its first holding
// operand (or all, when it fails); not by its operand.
//
// Limits: a formula is at most MaxFormulaBytes and nests at most
// MaxDepth; longer or deeper ones are refused with an error, never a
// stack overflow. Errors carry the line and column (1-based, in runes).
//
// Concurrency: a parsed Formula is immutable and safe for concurrent use.
package rtl
