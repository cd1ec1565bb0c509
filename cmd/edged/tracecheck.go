package main

import (
	"context"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/remote"
	"github.com/edged-robotics/edged/tracecheck"
	"github.com/spf13/cobra"
)

func init() { register(newTraceCheckCmd) }

func newTraceCheckCmd() *cobra.Command {
	var rulesFile, dir string
	var asJSON, failUnsat bool
	cmd := &cobra.Command{
		Use:   "check --rules FILE [--json] EPISODE|STORE_DIR|s3://...",
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
			unsat, err := checkWhere(cmd.Context(), rules, dir, args[0], out)
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

// checkSink is the command's side of tracecheck.Reporter: the text
// or the JSON report (tests keep the whole report instead).
type checkSink interface {
	episode(e checkedEpisode) error
	end(summary *tracecheck.Summary, skipped []string) error
}

type checkedEpisode = tracecheck.EpisodeReport

// runChecks is tracecheck's Check with the command's report.
func runChecks(rules *tracecheck.Rules, dir, ref string, load tracecheck.Loader, out checkSink) (unsat int, err error) {
	return rules.Check(dir, ref, load, reporter{out})
}

// checkWhere is runChecks of a store, or an episode, wherever it is: an
// object store (an s3:// URL, as EPISODE|STORE_DIR or as --dir with an
// id) is read where it is (tracecheck's CheckBlobs).
func checkWhere(ctx context.Context, rules *tracecheck.Rules, dir, ref string, out checkSink) (unsat int, err error) {
	named, id := ref, ""
	switch {
	case s3.IsURL(ref):
	case s3.IsURL(dir):
		named, id = dir, ref
	default:
		return runChecks(rules, dir, ref, episode.Load, out)
	}
	store, urlID, err := remote.Open(ctx, named)
	if err != nil {
		return 0, err
	}
	if id == "" {
		id = urlID
	}
	return rules.CheckBlobs(store, id, reporter{out})
}

// reporter hands tracecheck's report to a checkSink.
type reporter struct{ s checkSink }

func (r reporter) Episode(e checkedEpisode) error { return r.s.episode(e) }
func (r reporter) End(s *tracecheck.Summary, skipped []string) error {
	return r.s.end(s, skipped)
}

type textReport struct{ w *tabwriter.Writer }

func (r *textReport) episode(e checkedEpisode) error { return tracecheck.TextReport{W: r.w}.Episode(e) }
func (r *textReport) end(s *tracecheck.Summary, skipped []string) error {
	return tracecheck.TextReport{W: r.w}.End(s, skipped)
}

// jsonReport is tracecheck.JSONReport on w (set on first use).
type jsonReport struct {
	w io.Writer
	r tracecheck.JSONReport
}

func (j *jsonReport) episode(e checkedEpisode) error { j.r.W = j.w; return j.r.Episode(e) }
func (j *jsonReport) end(s *tracecheck.Summary, skipped []string) error {
	j.r.W = j.w
	return j.r.End(s, skipped)
}
