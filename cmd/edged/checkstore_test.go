package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/tracecheck"
)

// collected is a checkSink that keeps the whole report (tests only).
type collected struct {
	Episodes []checkedEpisode
	Summary  *tracecheck.Summary
	Skipped  []string
}

func (c *collected) episode(e checkedEpisode) error { c.Episodes = append(c.Episodes, e); return nil }

func (c *collected) end(s *tracecheck.Summary, skipped []string) error {
	c.Summary, c.Skipped = s, skipped
	return nil
}

// longRules are 15 checks of queries queries each, all of them holding
// over a generatedStore episode: each check's witness is every query.
func longRules(t testing.TB, queries int) *tracecheck.Rules {
	t.Helper()
	parts := make([]string, queries)
	for i := range parts {
		parts[i] = fmt.Sprintf("tr.Exists(s%d)", i%4)
	}
	var b strings.Builder
	b.WriteString("checks:\n")
	for c := range 15 {
		fmt.Fprintf(&b, "  - name: long-%02d\n    formula: '%s'\n", c, strings.Join(parts, " and "))
	}
	rules, err := tracecheck.ParseRules([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

// generatedStore writes n closed episodes of four segments (s0..s3)
// into a new store and returns its directory: a few recorded through
// store.Store (three robots), the rest copies of them under other ids
// (a store of thousands is quick to make).
func generatedStore(t testing.TB, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), episode.EpisodesDir)
	s, err := epstore.Open(dir, epstore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var recorded []string
	for i := range min(n, 3) {
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute)
		w, err := s.Begin(epstore.Begin{Robot: fmt.Sprintf("arm-%02d", i), Start: start, Instruction: "pick"})
		if err != nil {
			t.Fatal(err)
		}
		for k := range 4 {
			at := start.Add(time.Duration(k) * time.Second)
			label := fmt.Sprintf("s%d", k)
			if err := w.Segment(episode.Segment{Index: k, Start: at, End: at.Add(time.Second), StartSec: float64(k),
				EndSec: float64(k + 1), Label: label, Source: "/task/state", Kind: "string", Outcome: episode.Completed}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(start.Add(4*time.Second), episode.Completed, episode.EndIdle); err != nil {
			t.Fatal(err)
		}
		recorded = append(recorded, w.Dir())
	}
	for i := len(recorded); i < n; i++ {
		src := recorded[i%len(recorded)]
		if err := os.CopyFS(fmt.Sprintf("%s-copy%05d", src, i), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// heapWhileChecking runs the checks over store into out, and returns
// the live heap (after a GC) measured as the last episode is loaded:
// what the run holds once it has judged all the others.
func heapWhileChecking(t testing.TB, rules *tracecheck.Rules, store string, out checkSink) uint64 {
	t.Helper()
	ids, err := episode.IDs(store)
	if err != nil {
		t.Fatal(err)
	}
	var heap uint64
	load := func(dir, ref string) (*episode.Episode, error) {
		if ref == ids[len(ids)-1] {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap = ms.HeapAlloc
		}
		return episode.Load(dir, ref)
	}
	if _, err := runChecks(rules, "", store, load, out); err != nil {
		t.Fatal(err)
	}
	return heap
}

// TestCheckStoreMemoryIsFlat: edged check over a store holds one
// episode's results at a time, so the heap once it has judged 10N
// episodes is that of N; every report was kept until the end (with
// every witness of every check), 1 / 300 / 3,000 long-check episodes
// took 139 MB / 618 MB / 5.2 GB. Both outputs, and the JSON is one
// document with every episode.
func TestCheckStoreMemoryIsFlat(t *testing.T) {
	const n = 10
	rules := longRules(t, 200)
	small, large := generatedStore(t, n), generatedStore(t, 10*n)
	for _, tc := range []struct {
		name string
		out  func() checkSink
	}{
		{"text", func() checkSink { return &textReport{w: tabwriter.NewWriter(io.Discard, 0, 4, 2, ' ', 0)} }},
		{"json", func() checkSink { return &jsonReport{w: io.Discard} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := heapWhileChecking(t, rules, small, tc.out())
			b := heapWhileChecking(t, rules, large, tc.out())
			// the store's ids and the tally grow, by bytes per episode
			if b > a+a/2+(1<<20) {
				t.Fatalf("heap after %d episodes %d KiB, after %d %d KiB: grows with the store", n, a>>10, 10*n, b>>10)
			}
		})
	}
}

// TestCheckWitnessBounded: a check of thousands of queries, all of them
// evidence, gives at most tracecheck.MaxWitness pieces in --json, says
// how many it left out, and cuts the formula; the whole report of one
// episode stays small (15 such checks gave 1.8 MB).
func TestCheckWitnessBounded(t *testing.T) {
	store := generatedStore(t, 1)
	var rep collected
	if _, err := runChecks(longRules(t, 3000), "", store, episode.Load, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Episodes) != 1 || len(rep.Episodes[0].Results) != 15 {
		t.Fatalf("report %+v", rep.Episodes)
	}
	for _, r := range rep.Episodes[0].Results {
		if !r.Sat || len(r.Witness) != tracecheck.MaxWitness || r.WitnessOmitted != 3000-tracecheck.MaxWitness ||
			len(r.Formula) > tracecheck.MaxEchoBytes || !strings.HasSuffix(r.Formula, "…") {
			t.Fatalf("%s: sat %v, %d pieces of witness, %d omitted, formula of %d bytes %q", r.Check, r.Sat,
				len(r.Witness), r.WitnessOmitted, len(r.Formula), r.Formula[max(0, len(r.Formula)-20):])
		}
	}
	var b strings.Builder
	out := &jsonReport{w: &b}
	for _, e := range rep.Episodes {
		if err := out.episode(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := out.end(rep.Summary, nil); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 128<<10 { // 15 x (16 pieces of witness, a formula and a sentence, each bounded)
		t.Fatalf("--json of one episode is %d KiB", b.Len()>>10)
	}
}

// BenchmarkCheckStore reports the live heap of edged check over a
// generated store of 3,000 episodes of 15 long checks once it has judged
// them all (heap-MiB), against that of 300 (heap-300-MiB): flat.
func BenchmarkCheckStore(b *testing.B) {
	rules := longRules(b, 200)
	small, large := generatedStore(b, 300), generatedStore(b, 3000)
	b.ReportAllocs()
	b.ResetTimer()
	var a, c uint64
	for range b.N {
		a = heapWhileChecking(b, rules, small, &jsonReport{w: io.Discard})
		c = heapWhileChecking(b, rules, large, &jsonReport{w: io.Discard})
	}
	b.ReportMetric(float64(a)/(1<<20), "heap-300-MiB")
	b.ReportMetric(float64(c)/(1<<20), "heap-MiB")
}
