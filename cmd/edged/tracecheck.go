package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/tracecheck"
	"github.com/spf13/cobra"
)

func init() { register(newTraceCheckCmd) }

func newTraceCheckCmd() *cobra.Command {
	var rulesFile, dir string
	var asJSON, failUnsat bool
	cmd := &cobra.Command{
		Use:   "check --rules FILE [--json] EPISODE|STORE_DIR",
		Short: "Evaluate RTL trace checks over an episode, or over a whole store with pass rates",
		Long: "check evaluates the checks of a rules file (docs/rtl.md) over the trace of EPISODE (an episode\n" +
			"directory, an id or a unique id prefix in --dir) or of every episode of STORE_DIR (a data_dir, an\n" +
			"episode store or a sink's output). Each check is SAT or UNSAT with its witness: the element that\n" +
			"matched, or the part of the trace searched in vain. Over a store it adds the pass rate per check,\n" +
			"per robot and per day, reading one episode at a time; an episode deleted meanwhile (a live\n" +
			"robot's retention) is left out and named. It never writes. --json prints {\"episodes\":[{episode,\n" +
			"robot,start,instruction,results:[{check,formula,sat,witness,sentence}],problems}],\"summary\":\n" +
			"{checks,robots,days},\"skipped\":[ids]}; problems are what reading the episode found (the text's\n" +
			"warnings).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if rulesFile == "" {
				return fmt.Errorf("check: --rules FILE is required (docs/rtl.md describes the format)")
			}
			rules, err := tracecheck.LoadRules(rulesFile)
			if err != nil {
				return err
			}
			var out checkSink = &textReport{w: tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)}
			if asJSON {
				out = &jsonReport{w: cmd.OutOrStdout()}
			}
			unsat, err := runChecks(rules, dir, args[0], episode.Load, out)
			if err == nil && failUnsat && unsat > 0 {
				err = fmt.Errorf("check: %d UNSAT verdict(s) (--fail-on-unsat)", unsat)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&rulesFile, "rules", "", "rules file (YAML: checks and map, see docs/rtl.md)")
	cmd.Flags().StringVar(&dir, "dir", config.DefaultDataDir, "data_dir or episode store for an EPISODE given as an id")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of text")
	cmd.Flags().BoolVar(&failUnsat, "fail-on-unsat", false, "exit 1 when any check is UNSAT (for CI and scripts)")
	return cmd
}

// checkSink takes the report as runChecks makes it: each episode as it
// is judged, then the summary (nil for one episode) and the episodes
// left out. Nothing holds more than one episode: a fleet's store holds
// thousands.
type checkSink interface {
	episode(e checkedEpisode) error
	end(summary *tracecheck.Summary, skipped []string) error
}

// runChecks evaluates rules over the episode ref names, or over every
// episode of the store ref is (with the summary), loading one episode
// at a time and handing its results to out before the next: memory
// stays flat in the store's size (the store's ids, and a count per
// check and robot or day, are all it keeps). An episode deleted between
// listing and reading (a live robot's retention) is left out and named
// in skipped; any other unreadable episode is an error (what was
// judged before it is already out). It returns the UNSAT verdicts.
func runChecks(rules *tracecheck.Rules, dir, ref string, load func(dir, ref string) (*episode.Episode, error), out checkSink) (unsat int, err error) {
	judge := func(e *episode.Episode) (episode.Manifest, error) {
		ce, m := judged(rules, e)
		for _, r := range ce.Results {
			if !r.Sat {
				unsat++
			}
		}
		return m, out.episode(ce)
	}
	if st, err := os.Stat(ref); err != nil || !st.IsDir() || isEpisode(ref) {
		e, err := load(episode.StoreDir(dir), ref)
		if err != nil {
			return 0, err
		}
		if _, err := judge(e); err != nil {
			return unsat, err
		}
		return unsat, out.end(nil, nil)
	}
	sd := episode.StoreDir(ref)
	ids, err := episode.IDs(sd)
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, fmt.Errorf("check: no episodes in %s: give an episode directory or a store that holds some", sd)
	}
	var tally tracecheck.Tally
	var skipped []string
	for _, id := range ids {
		e, err := load(sd, id)
		if err != nil {
			if _, serr := os.Stat(filepath.Join(sd, id)); errors.Is(serr, fs.ErrNotExist) {
				skipped = append(skipped, id)
				continue
			}
			return unsat, err
		}
		m, err := judge(e)
		if err != nil {
			return unsat, err
		}
		tally.Add(m)
	}
	s := tally.Summary()
	return unsat, out.end(&s, skipped)
}

// judged evaluates rules over e: the episode's report, and e's manifest
// with their verdicts (for the summary).
func judged(rules *tracecheck.Rules, e *episode.Episode) (checkedEpisode, episode.Manifest) {
	res := rules.Evaluate(e)
	m := e.Manifest
	m.Verdicts = tracecheck.Verdicts(res)
	return checkedEpisode{ID: m.ID, Robot: m.Robot, Start: m.Start,
		Instruction: m.Instruction, Results: nonNil(res), Problems: nonNil(e.Problems)}, m
}

func isEpisode(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "manifest.json"))
	return err == nil
}

type checkedEpisode struct {
	ID          string              `json:"episode"`
	Robot       string              `json:"robot"`
	Start       time.Time           `json:"start"`
	Instruction string              `json:"instruction,omitempty"`
	Results     []tracecheck.Result `json:"results"`
	// Problems found reading the episode (episode.Episode.Problems):
	// the text output's warnings.
	Problems []string `json:"problems"`
}

// textReport writes the text: each episode's verdicts and warnings as
// it comes (flushed, as its lines are one tabwriter block), then the
// episodes left out and the pass rates.
type textReport struct{ w *tabwriter.Writer }

func (r *textReport) episode(e checkedEpisode) error {
	w := r.w
	fmt.Fprintf(w, "%s  %s  %q\n", e.ID, e.Start.UTC().Format(time.RFC3339), e.Instruction)
	if len(e.Results) == 0 {
		fmt.Fprintf(w, "  (no check in scope)\n")
	}
	for _, res := range e.Results {
		fmt.Fprintf(w, "  %s\t%s\t%s\n", satWord(res.Sat), res.Check, res.Sentence)
	}
	for _, p := range e.Problems {
		fmt.Fprintf(w, "  warning: %s\n", p)
	}
	return w.Flush()
}

func (r *textReport) end(s *tracecheck.Summary, skipped []string) error {
	w := r.w
	for _, id := range skipped {
		fmt.Fprintf(w, "%s  left out: deleted while checking (the store's retention)\n", id)
	}
	if s != nil {
		rates := func(group string, rs []tracecheck.Rate) {
			fmt.Fprintf(w, "\nCHECK\t%s\tEPISODES\tSAT\tPASS RATE\n", group)
			for _, x := range rs {
				fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.1f%%\n", x.Check, x.Group, x.Episodes, x.Sat, 100*x.PassRate)
			}
		}
		rates("", s.Checks)
		rates("ROBOT", s.Robots)
		rates("DAY", s.Days)
	}
	return w.Flush()
}

// jsonReport writes {"episodes":[...],"summary":...,"skipped":[...]}
// (summary and skipped omitted when empty), indented as
// json.Encoder.SetIndent("", "  ") would, one episode at a time.
type jsonReport struct {
	w io.Writer
	n int // episodes written
}

func (r *jsonReport) episode(e checkedEpisode) error {
	b, err := json.MarshalIndent(e, "    ", "  ")
	if err != nil {
		return err
	}
	sep := ",\n    "
	if r.n == 0 {
		sep = "{\n  \"episodes\": [\n    "
	}
	r.n++
	_, err = io.WriteString(r.w, sep+string(b))
	return err
}

func (r *jsonReport) end(s *tracecheck.Summary, skipped []string) error {
	tail := "\n  ]"
	if r.n == 0 {
		tail = "{\n  \"episodes\": []"
	}
	for _, f := range []struct {
		key string
		v   any
		set bool
	}{{"summary", s, s != nil}, {"skipped", skipped, len(skipped) > 0}} {
		if !f.set {
			continue
		}
		b, err := json.MarshalIndent(f.v, "  ", "  ")
		if err != nil {
			return err
		}
		tail += ",\n  \"" + f.key + "\": " + string(b)
	}
	_, err := io.WriteString(r.w, tail+"\n}\n")
	return err
}

func satWord(sat bool) string {
	if sat {
		return "SAT"
	}
	return "UNSAT"
}
