package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/remote"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/score"
	"github.com/spf13/cobra"
)

func init() { register(newScoreCmd) }

func newScoreCmd() *cobra.Command {
	var truth, pred, verdicts string
	var asJSON bool
	var stored storedScore
	var sem semanticFlags
	var rate, overlap float64
	cmd := &cobra.Command{
		Use:   "score --truth A --pred B | EPISODE --annotation NAME | --store STORE [--by model|robot|day]",
		Short: "Score a predicted segmentation against a reference (tau_k, tau_zeta, segment F1, baseline), or a fleet's annotations",
		Long: "score compares two segmentations with every metric of SCORING.md. Each input is an episode\n" +
			"directory (its recorded FSM segments), a JSON {\"segments\":[{start_sec,end_sec,subtask}]} file\n" +
			"(seconds) or a JSON list of [start, end, \"label\"] triples (integer steps; --rate converts them\n" +
			"to seconds). tau_zeta uses the built-in offline hashed n-gram encoder; end-to-end F1 uses the\n" +
			"offline lexical judge unless --verdicts gives an external judge's decisions. The output ends with\n" +
			"the matching that explains the F1 scores: each truth segment's match at IoU >= 0.75 (with the\n" +
			"judge's verdict) or its best IoU when unmatched, then each unmatched prediction; --json has it\n" +
			"whole under \"matching\" (keys in docs/SCORING.md). An invalid input, or one in steps against\n" +
			"one in seconds without --rate, is reported with the reason and not scored (exit status 1).\n\n" +
			storedScoreHelp + "\n\n" + semanticHelp,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			api, err := sem.open(cmd.Context(), verdicts != "")
			if err != nil {
				return err
			}
			if done, err := stored.run(cmd, args, asJSON, verdicts, overlap, api); done {
				return err
			}
			return scoreFiles(cmd.Context(), cmd.OutOrStdout(), scoreFileFlags{truth, pred, verdicts, rate, overlap, asJSON}, api)
		},
	}
	cmd.Flags().StringVar(&truth, "truth", "", "reference: episode directory or JSON file (required without EPISODE or --store)")
	cmd.Flags().StringVar(&pred, "pred", "", "prediction: episode directory or JSON file (required without EPISODE or --store)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().Float64Var(&rate, "rate", 0, "steps per second of the step triples: needed to compare them with seconds, and for recall by duration")
	cmd.Flags().StringVar(&verdicts, "verdicts", "", "an external judge's label verdicts for end-to-end F1 (JSON)")
	cmd.Flags().Float64Var(&overlap, "lexical-overlap", 0.5, "content-word overlap the offline lexical judge needs")
	stored.flags(cmd)
	sem.define(cmd)
	return cmd
}

// scoreFileFlags are score's flags for two inputs (--truth, --pred).
type scoreFileFlags struct {
	truth, pred, verdicts string
	rate, overlap         float64
	asJSON                bool
}

// scoreFiles scores --pred against --truth and writes the report (text
// or JSON; a refused input as JSON too) to out.
func scoreFiles(ctx context.Context, out io.Writer, f scoreFileFlags, api semantic) error {
	if f.truth == "" || f.pred == "" {
		return errors.New("score: give --truth and --pred, or EPISODE --annotation NAME, or --store STORE")
	}
	t, instruction, err := scoreInput(ctx, f.truth)
	if err != nil {
		return fmt.Errorf("--truth: %w", err)
	}
	p, _, err := scoreInput(ctx, f.pred)
	if err != nil {
		return fmt.Errorf("--pred: %w", err)
	}
	opts := score.Options{Rate: f.rate, Judge: score.LexicalJudge{MinOverlap: f.overlap}, Instruction: instruction}
	if f.verdicts != "" {
		if opts.Judge, err = view.ReadVerdicts(f.verdicts); err != nil {
			return fmt.Errorf("--verdicts: %w", err)
		}
	}
	api.apply(&opts)
	r, err := score.Score(t, p, opts)
	if err == nil {
		err = api.err()
	}
	var refused *score.Refused
	if errors.As(err, &refused) && f.asJSON {
		_ = json.NewEncoder(out).Encode(map[string]any{"refused": map[string]any{
			"input": refused.Which, "segment": refused.Err.Index, "reason": refused.Err.Reason}})
	}
	if err != nil {
		return fmt.Errorf("not scored: %w", err)
	}
	if f.asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return r.WriteText(out)
}

// scoreInput reads an input of score, with its task instruction when it
// is an episode (for a judge that reads it): an episode in an object
// store (its s3:// URL), read where it is (episode.LoadBlobs), an
// episode directory, or a file (view.ReadSegmentation).
func scoreInput(ctx context.Context, p string) (score.Segmentation, string, error) {
	var e *episode.Episode
	var err error
	switch {
	case s3.IsURL(p):
		store, id, oerr := remote.OpenEpisode(ctx, "", p)
		if oerr != nil {
			return score.Segmentation{}, "", oerr
		}
		e, err = episode.LoadBlobs(store, id)
	case episode.IsEpisodeDir(p):
		e, err = episode.Load("", p)
	default:
		s, err := view.ReadSegmentation(p)
		return s, "", err
	}
	if err != nil {
		return score.Segmentation{}, "", err
	}
	return view.Segmentation(e), e.Manifest.Instruction, nil
}
