package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// tolerance is how far the two subscribers' work may differ and the run
// still count.
type tolerance struct {
	// work: relative difference of bytes and of messages. Both measure
	// one wall-clock window (the scripts' BENCH_START), so they differ
	// only by what was in flight at its edges: nothing in a quiet run
	// (21800 messages each), under 2% unless a side lagged by hundreds
	// of milliseconds.
	work float64
	// gaps: seq gaps edged may show beyond the reference's, as a
	// fraction of the reference's messages (0.1%: 22 in the default run;
	// a stall of edged's loses thousands).
	gaps float64
}

var defaultTolerance = tolerance{work: 0.02, gaps: 0.001}

// report is one subscriber's line.
type report struct {
	who                         string
	messages, bytes, cpuS, gaps float64
	ctxswPerMsg, wakeupsPerMsg  float64
	maxIdleMs                   float64 // the longest wait between two messages of a topic (optional)
}

func (r report) cpuPerGB() float64 { return r.cpuS / (r.bytes / 1e9) }

// parseReport reads "WHO key=value ...": messages, bytes, cpu_s and
// seq_gaps are required; switches are per message (ctxsw_per_msg,
// wakeups_per_msg) or totals (ctxsw, wakeups).
func parseReport(line string) (report, error) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return report{}, fmt.Errorf("an empty report line: the subscriber printed none (see its log)")
	}
	r := report{who: f[0]}
	kv := map[string]float64{}
	for _, w := range f[1:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			continue
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || x < 0 || math.IsInf(x, 0) {
			return report{}, fmt.Errorf("%s's report: %s=%q is not a count: %q", r.who, k, v, line)
		}
		kv[k] = x
	}
	for _, k := range []string{"messages", "bytes", "cpu_s", "seq_gaps"} {
		if _, ok := kv[k]; !ok {
			return report{}, fmt.Errorf("%s's report lacks %s=: %q", r.who, k, line)
		}
	}
	r.messages, r.bytes, r.cpuS, r.gaps = kv["messages"], kv["bytes"], kv["cpu_s"], kv["seq_gaps"]
	r.maxIdleMs = kv["max_idle_ms"]
	msgs := max(r.messages, 1)
	r.ctxswPerMsg, r.wakeupsPerMsg = kv["ctxsw_per_msg"], kv["wakeups_per_msg"]
	if _, ok := kv["ctxsw_per_msg"]; !ok {
		r.ctxswPerMsg, r.wakeupsPerMsg = kv["ctxsw"]/msgs, kv["wakeups"]/msgs
	}
	return r, nil
}

// unequalWork says why e's and r's work differ beyond tol, or "".
func unequalWork(e, r report, tol tolerance) string {
	for _, s := range []report{e, r} {
		if s.bytes == 0 || s.messages == 0 {
			return fmt.Sprintf("%s received nothing", s.who)
		}
	}
	if d := relDiff(e.bytes, r.bytes); d > tol.work {
		return fmt.Sprintf("%s received %.0f MB, %s %.0f MB (%.1f%% apart, tolerance %.1f%%; seq gaps %.0f and %.0f)",
			e.who, e.bytes/1e6, r.who, r.bytes/1e6, 100*d, 100*tol.work, e.gaps, r.gaps)
	}
	if d := relDiff(e.messages, r.messages); d > tol.work {
		return fmt.Sprintf("%s received %.0f messages, %s %.0f (%.1f%% apart, tolerance %.1f%%; seq gaps %.0f and %.0f)",
			e.who, e.messages, r.who, r.messages, 100*d, 100*tol.work, e.gaps, r.gaps)
	}
	if why := excessGaps(e, r, tol); why != "" {
		return why
	}
	return excessGaps(r, e, tol)
}

// excessGaps says when a shows more seq gaps than b beyond tol: the
// publisher dropped messages for a alone (a fell behind), or "".
func excessGaps(a, b report, tol tolerance) string {
	allowed := b.gaps + math.Floor(tol.gaps*b.messages)
	if a.gaps <= allowed {
		return ""
	}
	return fmt.Sprintf("%s shows %.0f seq gaps, %s %.0f (at most %.0f allowed): the publisher dropped messages for %s alone",
		a.who, a.gaps, b.who, b.gaps, allowed, a.who)
}

// relDiff is |a-b| relative to the larger of them.
func relDiff(a, b float64) float64 { return math.Abs(a-b) / max(a, b) }
