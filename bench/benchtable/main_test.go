package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
		want     []string // in the table
		err      string
		absent   []string // not in the table
	}{
		{"all met", "noise\nRESULT ros1-ingest 0.40s/GB 0.50s/GB 0.80 <=1.0\nRESULT sheet-vs-ffmpeg 9ms 300ms 0.03 <=0.05\n", true,
			[]string{"0.40s/GB  0.50s/GB   0.80   <=1.0   ok"}, "", nil},
		{"one missed", "RESULT a 1 1 0.9 <=1.0\nRESULT cost-published-bytes 76.9MB/h 65MB/h 1.18 <=1.00\n", false,
			[]string{"MISSED", "an aim was missed"}, "", nil},
		{"at least", "RESULT x 5 1 5.0 >=4\n", true, []string{"ok"}, "", nil},
		{"at least missed", "RESULT x 3 1 3.0 >=4\n", false, []string{"MISSED"}, "", nil},
		{"skipped does not fail", "RESULT sheet skipped ../shared/data/pan720p.mp4 absent\nRESULT a 1 1 1.0 <=1.0\n", true,
			[]string{"skipped", "../shared/data/pan720p.mp4 absent"}, "", nil},
		{"a failed script fails", "RESULT bench-ros2 failed exit 1\n", false, []string{"failed"}, "", nil},
		{"nothing reported", "just output\n", false, []string{"no benchmark reported"}, "", nil},
		{"malformed", "RESULT a 1 1\n", false, nil, "want RESULT NAME FIGURE", nil},
		{"bad aim", "RESULT a 1 1 1.0 1.0\n", false, nil, "want <=X or >=X", nil},
		{"bad ratio", "RESULT a 1 1 NaNx <=1\n", false, nil, "is not a number", nil},
		// bench.sh's BENCHEXIT line after each script.
		{"exit 0 with rows", "RESULT a 1 1 1.0 <=1.0\nBENCHEXIT bench-a 0\n", true, []string{"ok"}, "", []string{"exit status"}},
		{"exit 1 after a miss: the miss alone", "RESULT cost-x 76.9MB 65MB 1.18 <=1.00\nBENCHEXIT bench-cost 1\n", false,
			[]string{"MISSED"}, "", []string{"exit status"}},
		{"exit 1 after its own failed row: that row alone", "RESULT clip-ingest failed no benchmark line\nBENCHEXIT bench-clip 1\n", false,
			[]string{"no benchmark line"}, "", []string{"exit status"}},
		{"exit 1 with every row met", "RESULT a 1 1 1.0 <=1.0\nBENCHEXIT bench-a 1\n", false,
			[]string{"bench-a", "failed", "exit status 1 (output above)"}, "", nil},
		{"exit 2 after a miss", "RESULT a 2 1 2.0 <=1.0\nBENCHEXIT bench-a 2\n", false,
			[]string{"MISSED", "exit status 2 (output above)"}, "", nil},
		{"no RESULT line", "panic: boom\nBENCHEXIT bench-a 0\n", false,
			[]string{"bench-a", "printed no RESULT line, exit status 0"}, "", nil},
		{"rows belong to their script", "RESULT a 2 1 2.0 <=1.0\nBENCHEXIT bench-a 1\nRESULT b 1 1 1.0 <=1.0\nBENCHEXIT bench-b 1\n", false,
			[]string{"bench-b", "exit status 1"}, "", []string{"bench-a"}},
		{"BENCHEXIT without status", "BENCHEXIT bench-a\n", false, nil, "want BENCHEXIT SCRIPT STATUS", nil},
		{"BENCHEXIT bad status", "BENCHEXIT bench-a x\n", false, nil, "is not a number", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := parse(strings.NewReader(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			if ok := writeTable(&b, rows); ok != tc.ok {
				t.Errorf("ok %v, want %v:\n%s", ok, tc.ok, b.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(b.String(), w) {
					t.Errorf("table lacks %q:\n%s", w, b.String())
				}
			}
			for _, a := range tc.absent {
				if strings.Contains(b.String(), a) {
					t.Errorf("table has %q:\n%s", a, b.String())
				}
			}
		})
	}
}

// Every script make bench runs prints its rows: the table counts one
// that prints none as failed, so make bench could never pass
// (scripts/bench-uplink.sh printed none).
func TestEveryBenchScriptPrintsRows(t *testing.T) {
	scripts, err := filepath.Glob("../../scripts/bench-*.sh")
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts/bench-*.sh found (%v)", err)
	}
	for _, s := range scripts {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "RESULT ") {
			t.Errorf("%s prints no RESULT row for make bench's table", filepath.Base(s))
		}
	}
}
