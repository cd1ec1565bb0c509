// Package tracecheck evaluates RTL checks (package rtl) over recorded
// episodes: every episode is an execution trace, and every check a
// temporal property of it (RoboEval's correctness checks).
//
//   - rules.go owns the rules file format (docs/rtl.md): named checks,
//     each an RTL formula, optionally scoped to episodes by instruction
//     (a regular expression, unanchored, case-insensitive) or by FSM
//     source (a topic); and a map from recorded states to RTL elements
//     where the names differ. ParseRules decodes and validates without
//     I/O, with errors naming the field (checks[2].formula: 1:17:
//     expected ')'); LoadRules reads a file, capped at MaxRulesBytes.
//   - trace.go turns an episode into a trace (Trace): one element per
//     segment in start order (segments of the same start in index
//     order), and, while the episode is open, one per state opened since
//     the last segment (from the transitions). A state is mapped when
//     the rules map it, else read as it stands (rtl.ParseElement: a
//     state recorded as ask(lunch) is ask with the argument lunch). An
//     actionlib goal is the element named by its action (the last part
//     of the topic without /status) with the goal's fields as its
//     arguments (recorded from the action's goal topic, fsm/goal.go:
//     pick(cup, table)); without them (ROS 2 actions send goals by
//     service), its status text when it says something. An open goal of
//     an open episode has the arguments of its opening transition or of
//     a TransitionGoal after it (the goal came after its status).
//   - check.go evaluates the rules over an episode (Evaluate: one
//     Result per check in scope, with the witness), and makes the
//     manifest's verdicts of them (Verdicts).
//   - summary.go aggregates verdicts over a store: the pass rate per
//     check, per robot and per day (UTC, of the episode's start).
//   - store.go is `edged check`: Check judges one episode or every
//     episode of a store (CheckStore; CheckBlobs for a store in an
//     object store, read where it is), one at a time, handing each
//     report to a Reporter, and ends with the summary and the episodes
//     a live store's retention deleted meanwhile; report.go writes that
//     report as text (TextReport) or as one JSON document (JSONReport),
//     streamed, so memory stays flat in the store's size.
//
// It sits above episode and rtl and below pipeline, daemon and
// cmd/edged. Every function is pure apart from the reads and writes it
// names; Rules are immutable once parsed and safe for concurrent use.
package tracecheck
