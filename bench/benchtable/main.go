// Command benchtable ends `make bench` (scripts/bench.sh): it reads the
// result lines the benchmark scripts print,
//
//	RESULT NAME FIGURE REFERENCE RATIO AIM
//
// (FIGURE and REFERENCE with their unit and no space, e.g. 0.41s/GB;
// RATIO is FIGURE/REFERENCE; AIM is <=X or >=X), or
//
//	RESULT NAME skipped REASON...   (not counted: a missing component)
//	RESULT NAME failed REASON...    (a script that did not finish)
//
// and the line bench.sh adds after each script's output,
//
//	BENCHEXIT SCRIPT STATUS
//
// which judges the script by the rows it printed since the previous
// BENCHEXIT: status 0 with a row, or status 1 with a row that missed its
// aim or failed (the row says what went wrong), adds nothing; any other
// status, status 1 with every row met, or no row at all adds a row
// "SCRIPT failed". It ignores every other line, prints one table of
// them all and exits 1 when an aim was missed or a benchmark failed, 2
// on a malformed RESULT or BENCHEXIT line. Input: the files named, else
// stdin.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
)

// row is one RESULT line.
type row struct {
	name, figure, reference, ratio, aim string
	verdict                             string // ok, MISSED, failed, skipped
}

func main() {
	var in []io.Reader
	for _, p := range os.Args[1:] {
		f, err := os.Open(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(2)
		}
		defer f.Close()
		in = append(in, f)
	}
	if len(in) == 0 {
		in = append(in, os.Stdin)
	}
	rows, err := parse(io.MultiReader(in...))
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(2)
	}
	if !writeTable(os.Stdout, rows) {
		os.Exit(1)
	}
}

// parse reads every RESULT line of r and judges it.
func parse(r io.Reader) ([]row, error) {
	var rows []row
	since := 0 // the first row of the script running
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		if len(f) > 0 && f[0] == "BENCHEXIT" {
			r, err := judgeScript(f, rows[since:])
			if err != nil {
				return nil, fmt.Errorf("line %d: %q: %w", n, sc.Text(), err)
			}
			rows, since = append(rows, r...), len(rows)+len(r)
			continue
		}
		if len(f) == 0 || f[0] != "RESULT" {
			continue
		}
		if len(f) >= 3 && (f[2] == "skipped" || f[2] == "failed") {
			rows = append(rows, row{name: f[1], figure: strings.Join(f[3:], " "), verdict: f[2]})
			continue
		}
		if len(f) != 6 {
			return nil, fmt.Errorf("line %d: %q: want RESULT NAME FIGURE REFERENCE RATIO AIM", n, sc.Text())
		}
		rw := row{name: f[1], figure: f[2], reference: f[3], ratio: f[4], aim: f[5]}
		met, err := meets(rw.ratio, rw.aim)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", n, rw.name, err)
		}
		rw.verdict = map[bool]string{true: "ok", false: "MISSED"}[met]
		rows = append(rows, rw)
	}
	return rows, sc.Err()
}

// judgeScript reads BENCHEXIT SCRIPT STATUS and returns the failed row
// the script's exit adds to its rows, if any (see the package comment).
func judgeScript(f []string, rows []row) ([]row, error) {
	if len(f) != 3 {
		return nil, fmt.Errorf("want BENCHEXIT SCRIPT STATUS")
	}
	status, err := strconv.Atoi(f[2])
	if err != nil {
		return nil, fmt.Errorf("status %q is not a number", f[2])
	}
	explained := false // a row of the script says why it exited 1
	for _, r := range rows {
		explained = explained || r.verdict == "MISSED" || r.verdict == "failed"
	}
	failed := row{name: f[1], verdict: "failed"}
	switch {
	case len(rows) == 0:
		failed.figure = fmt.Sprintf("printed no RESULT line, exit status %d (output above)", status)
	case status == 0 || status == 1 && explained:
		return nil, nil
	default:
		failed.figure = fmt.Sprintf("exit status %d (output above)", status)
	}
	return []row{failed}, nil
}

// meets says whether ratio is within aim (<=X or >=X).
func meets(ratio, aim string) (bool, error) {
	v, err := strconv.ParseFloat(ratio, 64)
	if err != nil {
		return false, fmt.Errorf("ratio %q is not a number", ratio)
	}
	if len(aim) < 3 || (aim[:2] != "<=" && aim[:2] != ">=") {
		return false, fmt.Errorf("aim %q: want <=X or >=X", aim)
	}
	x, err := strconv.ParseFloat(aim[2:], 64)
	if err != nil {
		return false, fmt.Errorf("aim %q: want <=X or >=X", aim)
	}
	if aim[:2] == "<=" {
		return v <= x, nil
	}
	return v >= x, nil
}

// writeTable writes the table; ok is false when a benchmark missed its aim
// or failed (or none reported at all).
func writeTable(w io.Writer, rows []row) (ok bool) {
	fmt.Fprintln(w, "== benchmarks against their references (ratio = figure / reference)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "benchmark\tfigure\treference\tratio\taim\t")
	ok = len(rows) > 0
	for _, r := range rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.name, r.figure, r.reference, r.ratio, r.aim, r.verdict)
		ok = ok && (r.verdict == "ok" || r.verdict == "skipped")
	}
	tw.Flush()
	switch {
	case len(rows) == 0:
		fmt.Fprintln(w, "no benchmark reported a result")
	case !ok:
		fmt.Fprintln(w, "bench: an aim was missed or a benchmark failed")
	}
	return ok
}
