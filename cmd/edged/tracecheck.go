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
			rep, err := runChecks(rules, dir, args[0], episode.Load)
			if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				err = enc.Encode(rep)
			} else {
				err = rep.write(cmd.OutOrStdout())
			}
			if err == nil && failUnsat {
				err = rep.unsat()
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

// unsat is an error naming how many verdicts were UNSAT, nil when none.
func (r checkReport) unsat() error {
	n := 0
	for _, e := range r.Episodes {
		for _, res := range e.Results {
			if !res.Sat {
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	return fmt.Errorf("check: %d UNSAT verdict(s) (--fail-on-unsat)", n)
}

// runChecks evaluates rules over the episode ref names, or over every
// episode of the store ref is (with the summary), holding one episode in
// memory at a time: a fleet's store holds thousands. An episode deleted
// between listing and reading (a live robot's retention) is left out and
// named in Skipped; any other unreadable episode is an error.
func runChecks(rules *tracecheck.Rules, dir, ref string, load func(dir, ref string) (*episode.Episode, error)) (checkReport, error) {
	rep := checkReport{Episodes: []checkedEpisode{}}
	if st, err := os.Stat(ref); err != nil || !st.IsDir() || isEpisode(ref) {
		e, err := load(episode.StoreDir(dir), ref)
		if err != nil {
			return rep, err
		}
		rep.add(rules, e)
		return rep, nil
	}
	sd := episode.StoreDir(ref)
	ms, err := episode.List(sd)
	if err != nil {
		return rep, err
	}
	if len(ms) == 0 {
		return rep, fmt.Errorf("check: no episodes in %s: give an episode directory or a store that holds some", sd)
	}
	var judged []episode.Manifest
	for _, m := range ms {
		e, err := load(sd, m.ID)
		if err != nil {
			if _, serr := os.Stat(filepath.Join(sd, m.ID)); errors.Is(serr, fs.ErrNotExist) {
				rep.Skipped = append(rep.Skipped, m.ID)
				continue
			}
			return rep, err
		}
		judged = append(judged, rep.add(rules, e))
	}
	s := tracecheck.Summarize(judged)
	rep.Summary = &s
	return rep, nil
}

// add evaluates rules over e and appends the results; it returns e's
// manifest with their verdicts (for the summary).
func (r *checkReport) add(rules *tracecheck.Rules, e *episode.Episode) episode.Manifest {
	res := rules.Evaluate(e)
	m := e.Manifest
	m.Verdicts = tracecheck.Verdicts(res)
	r.Episodes = append(r.Episodes, checkedEpisode{ID: m.ID, Robot: m.Robot, Start: m.Start,
		Instruction: m.Instruction, Results: nonNil(res), Problems: nonNil(e.Problems)})
	return m
}

func isEpisode(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "manifest.json"))
	return err == nil
}

type checkReport struct {
	Episodes []checkedEpisode    `json:"episodes"`
	Summary  *tracecheck.Summary `json:"summary,omitempty"`
	Skipped  []string            `json:"skipped,omitempty"` // deleted while checking
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

func (r checkReport) write(out io.Writer) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, e := range r.Episodes {
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
	}
	for _, id := range r.Skipped {
		fmt.Fprintf(w, "%s  left out: deleted while checking (the store's retention)\n", id)
	}
	if s := r.Summary; s != nil {
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

func satWord(sat bool) string {
	if sat {
		return "SAT"
	}
	return "UNSAT"
}
