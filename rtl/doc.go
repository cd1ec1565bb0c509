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
// # Grammar, matching, slices
//
// A formula combines queries with not, and, or (precedence as in
// Python) and parentheses; a query is tr, slices, then .Exists(pattern):
//
//	not tr.BeforeFirst(goto(lobby)).Exists(pick)
//
// The grammar is in parse.go. A pattern's name and arguments are RE2
// regular expressions anchored at both ends, arguments matched by
// position with further ones free. A slice excludes the matching element;
// AfterFirst and AfterLast of no match are empty, BeforeFirst and
// BeforeLast of no match the whole trace (eval.go says why).
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
