package main

import (
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		ok       bool
		want     []string // in the table
		err      string
	}{
		{"all met", "noise\nRESULT ros1-ingest 0.40s/GB 0.50s/GB 0.80 <=1.0\nRESULT sheet-vs-ffmpeg 9ms 300ms 0.03 <=0.05\n", true,
			[]string{"0.40s/GB  0.50s/GB   0.80   <=1.0   ok"}, ""},
		{"one missed", "RESULT a 1 1 0.9 <=1.0\nRESULT cost-published-bytes 76.9MB/h 65MB/h 1.18 <=1.00\n", false,
			[]string{"MISSED", "an aim was missed"}, ""},
		{"at least", "RESULT x 5 1 5.0 >=4\n", true, []string{"ok"}, ""},
		{"at least missed", "RESULT x 3 1 3.0 >=4\n", false, []string{"MISSED"}, ""},
		{"skipped does not fail", "RESULT sheet skipped ../shared/data/pan720p.mp4 absent\nRESULT a 1 1 1.0 <=1.0\n", true,
			[]string{"skipped", "../shared/data/pan720p.mp4 absent"}, ""},
		{"a failed script fails", "RESULT bench-ros2 failed exit 1\n", false, []string{"failed"}, ""},
		{"nothing reported", "just output\n", false, []string{"no benchmark reported"}, ""},
		{"malformed", "RESULT a 1 1\n", false, nil, "want RESULT NAME FIGURE"},
		{"bad aim", "RESULT a 1 1 1.0 1.0\n", false, nil, "want <=X or >=X"},
		{"bad ratio", "RESULT a 1 1 NaNx <=1\n", false, nil, "is not a number"},
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
		})
	}
}
