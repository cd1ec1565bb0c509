package main

import (
	"encoding/json"
	"fmt"
	"io"
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
			"per robot and per day. It never writes. --json prints {\"episodes\":[{episode,robot,start,\n" +
			"instruction,results:[{check,formula,sat,witness,sentence}]}],\"summary\":{checks,robots,days}}.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if rulesFile == "" {
				return fmt.Errorf("check: --rules FILE is required (docs/rtl.md describes the format)")
			}
			rules, err := tracecheck.LoadRules(rulesFile)
			if err != nil {
				return err
			}
			eps, store, err := checkEpisodes(dir, args[0])
			if err != nil {
				return err
			}
			rep := checkReport{Episodes: []checkedEpisode{}}
			var ms []episode.Manifest
			for _, e := range eps {
				res := rules.Evaluate(e)
				m := e.Manifest
				m.Verdicts = tracecheck.Verdicts(res)
				ms = append(ms, m)
				rep.Episodes = append(rep.Episodes, checkedEpisode{ID: m.ID, Robot: m.Robot, Start: m.Start,
					Instruction: m.Instruction, Results: nonNil(res), problems: e.Problems})
			}
			if store {
				s := tracecheck.Summarize(ms)
				rep.Summary = &s
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

// checkEpisodes loads the one episode ref names, or every episode of the
// store ref is (store true).
func checkEpisodes(dir, ref string) (eps []*episode.Episode, store bool, err error) {
	if st, err := os.Stat(ref); err == nil && st.IsDir() && !isEpisode(ref) {
		sd := episode.StoreDir(ref)
		ms, err := episode.List(sd)
		if err != nil {
			return nil, true, err
		}
		if len(ms) == 0 {
			return nil, true, fmt.Errorf("check: no episodes in %s: give an episode directory or a store that holds some", sd)
		}
		for _, m := range ms {
			e, err := episode.Load(sd, m.ID)
			if err != nil {
				return nil, true, err
			}
			eps = append(eps, e)
		}
		return eps, true, nil
	}
	e, err := episode.Load(episode.StoreDir(dir), ref)
	if err != nil {
		return nil, false, err
	}
	return []*episode.Episode{e}, false, nil
}

func isEpisode(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "manifest.json"))
	return err == nil
}

type checkReport struct {
	Episodes []checkedEpisode    `json:"episodes"`
	Summary  *tracecheck.Summary `json:"summary,omitempty"`
}

type checkedEpisode struct {
	ID          string              `json:"episode"`
	Robot       string              `json:"robot"`
	Start       time.Time           `json:"start"`
	Instruction string              `json:"instruction,omitempty"`
	Results     []tracecheck.Result `json:"results"`
	problems    []string
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
		for _, p := range e.problems {
			fmt.Fprintf(w, "  warning: %s\n", p)
		}
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
