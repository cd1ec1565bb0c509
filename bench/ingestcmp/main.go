// Command ingestcmp ends an ingest benchmark (scripts/bench-ros.sh,
// scripts/bench-ros2.sh): it reads the one-line reports of edged's
// subscriber and of the reference subscriber that received the same
// streams in the same wall-clock window (BENCH_START),
//
//	edged messages=N bytes=B cpu_s=C seq_gaps=G [max_idle_ms=I ctxsw_per_msg=S wakeups_per_msg=W]
//	roscpp messages=N bytes=B cpu_s=C seq_gaps=G [max_idle_ms=I ctxsw=S wakeups=W]
//	edged messages=N bytes=B cpu_s=C drops=D seq_gaps=G ctxsw=S wakeups=W   (ROS 2: bench/ros2/ingest)
//	c messages=N bytes=B cpu_s=C drops=D seq_gaps=G ctxsw=S wakeups=W       (ROS 2: bench/ros2/sub.c)
//
// (other keys, such as drops, are ignored: a drop shows as a seq gap),
// prints each side's rate and CPU seconds per GB and make bench's
// RESULT line (bench/benchtable). A CPU ratio is only meaningful for
// equal work: when edged received more or fewer bytes or messages than
// the reference beyond -tolerance, or one of them shows sequence gaps
// the other does not (beyond -gap-tolerance of the other's messages:
// the publisher dropped messages for that one alone, which fell
// behind), it prints why on stderr and as "RESULT NAME failed ..." and
// exits 1. Gaps both show are the publisher's own (it was starved and
// overflowed every subscriber's queue): they void nothing.
//
// Usage: ingestcmp -name NAME -seconds S EDGED_LINE REFERENCE_LINE
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() {
	name := flag.String("name", "ros1-ingest-cpu-per-GB", "the RESULT row's name")
	seconds := flag.Float64("seconds", 20, "the measured window of both subscribers, for the rates")
	tol := flag.Float64("tolerance", defaultTolerance.work, "largest relative difference of bytes and of messages received")
	gapTol := flag.Float64("gap-tolerance", defaultTolerance.gaps,
		"largest excess of edged's seq gaps over the reference's, as a fraction of the reference's messages")
	flag.Parse()
	if flag.NArg() != 2 || *seconds <= 0 {
		fmt.Fprintln(os.Stderr, "usage: ingestcmp [-name NAME] [-seconds S] EDGED_LINE REFERENCE_LINE")
		os.Exit(2)
	}
	os.Exit(run(os.Stdout, os.Stderr, *name, *seconds, tolerance{work: *tol, gaps: *gapTol}, flag.Arg(0), flag.Arg(1)))
}

// run compares the two lines and prints the report; it returns the exit
// status: 0 for a comparable run, 1 for unequal work, 2 for a line it
// cannot read.
func run(out, errOut io.Writer, name string, seconds float64, tol tolerance, edgedLine, refLine string) int {
	e, err := parseReport(edgedLine)
	if err == nil {
		var r report
		r, err = parseReport(refLine)
		if err == nil {
			return compare(out, errOut, name, seconds, tol, e, r)
		}
	}
	fmt.Fprintln(errOut, "ingestcmp:", err)
	fmt.Fprintf(out, "RESULT %s failed a subscriber's report is unreadable: %v\n", name, err)
	return 2
}

func compare(out, errOut io.Writer, name string, seconds float64, tol tolerance, e, r report) int {
	for _, s := range []report{e, r} {
		fmt.Fprintf(out, "%-7s: %7.1f MB/s received, %d messages, %.0f seq gaps, longest wait %.0f ms, %.3f CPU s/GB, "+
			"%.2f context switches and %.2f wake-ups per message\n",
			s.who, s.bytes/1e6/seconds, uint64(s.messages), s.gaps, s.maxIdleMs, s.cpuPerGB(), s.ctxswPerMsg, s.wakeupsPerMsg)
	}
	if why := unequalWork(e, r, tol); why != "" {
		fmt.Fprintf(errOut, "ingestcmp: the run is void, the CPU ratio would compare unequal work: %s\n", why)
		fmt.Fprintf(out, "RESULT %s failed unequal work: %s\n", name, why)
		return 1
	}
	ratio := e.cpuPerGB() / r.cpuPerGB()
	fmt.Fprintf(out, "ratio %s/%s CPU per GB: %.2f (aim <= 1.0)\n", e.who, r.who, ratio)
	fmt.Fprintf(out, "RESULT %s %.3fs/GB %.3fs/GB %.2f <=1.0\n", name, e.cpuPerGB(), r.cpuPerGB(), ratio)
	return 0
}
