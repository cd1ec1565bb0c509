package main

import (
	"strings"
	"testing"
)

// TestRun: a run counts only when both subscribers did the same work;
// otherwise its RESULT row is "failed" with the reason, and the exit
// status is 1 (2 for a report it cannot read).
func TestRun(t *testing.T) {
	const ref = "roscpp messages=21800 bytes=5000000000 cpu_s=2.000 seq_gaps=4 ctxsw=43600 wakeups=21800"
	runCases(t, "ros1-ingest-cpu-per-GB", []runCase{
		{"equal work", "edged messages=21790 bytes=4995000000 cpu_s=1.800 seq_gaps=4 ctxsw_per_msg=1.5 wakeups_per_msg=1.0", ref,
			0, "RESULT ros1-ingest-cpu-per-GB 0.360s/GB 0.400s/GB 0.90 <=1.0", ""},
		{"a few gaps more, within tolerance", "edged messages=21800 bytes=5000000000 cpu_s=2.2 seq_gaps=20", ref,
			0, "RESULT ros1-ingest-cpu-per-GB 0.440s/GB 0.400s/GB 1.10 <=1.0", ""},
		// issue: edged at 174 MB/s against roscpp's 252 MB/s gave a ratio
		{"fewer bytes", "edged messages=21700 bytes=3480000000 cpu_s=1.0 seq_gaps=4", ref,
			1, "RESULT ros1-ingest-cpu-per-GB failed unequal work:", "edged received 3480 MB, roscpp 5000 MB"},
		{"more messages", "edged messages=23000 bytes=5000000000 cpu_s=1.0 seq_gaps=4", ref,
			1, "RESULT ros1-ingest-cpu-per-GB failed unequal work:", "edged received 23000 messages, roscpp 21800"},
		// issue: 5,742 seq gaps on edged's side, 4 on roscpp's
		{"gaps roscpp does not show", "edged messages=21800 bytes=4990000000 cpu_s=1.0 seq_gaps=5742", ref,
			1, "RESULT ros1-ingest-cpu-per-GB failed unequal work:", "edged shows 5742 seq gaps, roscpp 4"},
		// run 2 of this branch: roscpp fell behind, edged did not
		{"gaps edged does not show", "edged messages=21810 bytes=5001416552 cpu_s=1.7 seq_gaps=0",
			"roscpp messages=21700 bytes=4990000000 cpu_s=5.0 seq_gaps=100",
			1, "RESULT ros1-ingest-cpu-per-GB failed unequal work:", "roscpp shows 100 seq gaps, edged 0 (at most 21 allowed)"},
		{"nothing received", "edged messages=0 bytes=0 cpu_s=0.1 seq_gaps=0", ref,
			1, "RESULT ros1-ingest-cpu-per-GB failed unequal work:", "edged received nothing"},
		{"no reference line", "edged messages=1 bytes=1 cpu_s=0 seq_gaps=0", "",
			2, "RESULT ros1-ingest-cpu-per-GB failed a subscriber's report is unreadable:", "printed none"},
		{"a field missing", "edged messages=1 bytes=1 cpu_s=0", ref,
			2, "RESULT ros1-ingest-cpu-per-GB failed a subscriber's report is unreadable:", "lacks seq_gaps="},
		{"a field garbled", "edged messages=x bytes=1 cpu_s=0 seq_gaps=0", ref,
			2, "RESULT ros1-ingest-cpu-per-GB failed a subscriber's report is unreadable:", `messages="x" is not a count`},
	})
}

// TestRunROS2: scripts/bench-ros2.sh's lines (bench/ros2/ingest and
// bench/ros2/sub.c: the reference is "c", both give drops= and switch
// totals) go by the same rule.
func TestRunROS2(t *testing.T) {
	const ref = "c messages=46800 bytes=4200000000 cpu_s=1.500 drops=0 seq_gaps=0 ctxsw=50000 wakeups=47000"
	runCases(t, "ros2-ingest-cpu-per-GB", []runCase{
		{"equal work", "edged messages=46790 bytes=4199000000 cpu_s=1.260 drops=0 seq_gaps=0 ctxsw=60000 wakeups=55000", ref,
			0, "RESULT ros2-ingest-cpu-per-GB 0.300s/GB 0.357s/GB 0.84 <=1.0", ""},
		{"edged fell behind", "edged messages=45000 bytes=3000000000 cpu_s=1.0 drops=120 seq_gaps=1800 ctxsw=1 wakeups=1", ref,
			1, "RESULT ros2-ingest-cpu-per-GB failed unequal work:", "edged received 3000 MB, c 4200 MB"},
		{"gaps on edged's side only", "edged messages=46500 bytes=4190000000 cpu_s=1.0 drops=300 seq_gaps=300 ctxsw=1 wakeups=1", ref,
			1, "RESULT ros2-ingest-cpu-per-GB failed unequal work:", "edged shows 300 seq gaps, c 0 (at most 46 allowed)"},
		{"gaps on the C side only", "edged messages=46800 bytes=4200000000 cpu_s=1.0 drops=0 seq_gaps=0 ctxsw=1 wakeups=1",
			"c messages=46700 bytes=4190000000 cpu_s=1.5 drops=0 seq_gaps=100 ctxsw=1 wakeups=1",
			1, "RESULT ros2-ingest-cpu-per-GB failed unequal work:", "c shows 100 seq gaps, edged 0"},
		{"the C side printed nothing", "edged messages=1 bytes=1 cpu_s=0 drops=0 seq_gaps=0", "",
			2, "RESULT ros2-ingest-cpu-per-GB failed a subscriber's report is unreadable:", "printed none"},
	})
}

// runCase is one run of the comparison: both lines, the exit status and
// what the RESULT row says.
type runCase struct {
	name, edged, ref string
	status           int
	row              string // the RESULT line's start
	why              string // in the failed row (and on stderr)
}

func runCases(t *testing.T, name string, cases []runCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			status := run(&out, &errOut, name, 20, defaultTolerance, tc.edged, tc.ref)
			if status != tc.status {
				t.Errorf("status %d, want %d\n%s%s", status, tc.status, out.String(), errOut.String())
			}
			row := resultLine(out.String())
			if !strings.HasPrefix(row, tc.row) || !strings.Contains(row, tc.why) {
				t.Errorf("RESULT line %q, want it to start %q and say %q", row, tc.row, tc.why)
			}
			if tc.status != 0 && !strings.Contains(errOut.String(), tc.why) {
				t.Errorf("stderr %q does not say %q", errOut.String(), tc.why)
			}
		})
	}
}

func resultLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "RESULT ") {
			return l
		}
	}
	return ""
}
