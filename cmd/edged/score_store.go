package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/remote"
	"github.com/edged-robotics/edged/episode/view"
	"github.com/edged-robotics/edged/score"
	"github.com/edged-robotics/edged/score/fleet"
)

const storedScoreHelp = "EPISODE --annotation NAME scores an annotation edged annotate stored in the episode (EPISODE: an\n" +
	"episode directory or its s3:// URL; NAME as edged inspect EPISODE lists it) against its FSM segments,\n" +
	"printed as above. --store STORE (a data_dir, an episode store or an s3:// URL) is the fleet view: every\n" +
	"stored annotation scored against its episode's FSM segments and added up per model and prompt version\n" +
	"(--by model), robot or day, each mode apart, with counts (episodes, annotations, invalid ones,\n" +
	"segments), tau_k and tau_zeta (mean over scored annotations), segment and end-to-end F1 (pooled over\n" +
	"all segments, and the mean per annotation), tokens and cost per camera-hour (docs/annotate.md)."

// storedScore is what edged score does with annotations in a store.
type storedScore struct {
	annotation, store, by string
}

func (s *storedScore) flags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.annotation, "annotation", "", "with EPISODE: the stored annotation to score (edged inspect EPISODE lists them)")
	f.StringVar(&s.store, "store", "", "the fleet view of this store: data_dir, episode store or s3:// URL")
	f.StringVar(&s.by, "by", fleet.ByModel, "with --store: group by model (and prompt version), robot or day")
}

// run does the command when it is about stored annotations (done); the
// rest is the files' scoring.
func (s *storedScore) run(cmd *cobra.Command, args []string, asJSON bool, verdicts string, overlap float64, api semantic) (done bool, err error) {
	if s.store == "" && len(args) == 0 {
		if s.annotation != "" {
			return true, errors.New("score: --annotation NAME needs the EPISODE it is stored in")
		}
		return false, nil
	}
	opts := score.Options{Judge: score.LexicalJudge{MinOverlap: overlap}}
	if verdicts != "" {
		b, err := os.ReadFile(verdicts)
		if err != nil {
			return true, err
		}
		if opts.Judge, err = score.ParseVerdicts(b); err != nil {
			return true, fmt.Errorf("--verdicts: %w", err)
		}
	}
	api.apply(&opts)
	if s.store != "" {
		if len(args) > 0 || s.annotation != "" {
			return true, errors.New("score: --store is the fleet view of a whole store: give no EPISODE nor --annotation")
		}
		return true, s.fleet(cmd, asJSON, opts, api)
	}
	return true, s.one(cmd, args[0], asJSON, opts, api)
}

func (s *storedScore) fleet(cmd *cobra.Command, asJSON bool, opts score.Options, api semantic) error {
	if err := fleet.CheckBy(s.by); err != nil {
		return err
	}
	b, err := openStore(cmd.Context(), s.store)
	if err != nil {
		return err
	}
	sum, err := fleet.Scan(cmd.Context(), b, s.by, opts)
	if err == nil {
		err = api.err()
	}
	if err != nil {
		return err
	}
	if asJSON {
		enc := json.NewEncoder(cmd.OutOrStdout())
		enc.SetIndent("", "  ")
		return enc.Encode(sum)
	}
	return sum.WriteText(cmd.OutOrStdout())
}

func (s *storedScore) one(cmd *cobra.Command, ref string, asJSON bool, opts score.Options, api semantic) error {
	b, e, err := openEpisode(cmd.Context(), ref)
	if err != nil {
		return err
	}
	if s.annotation == "" {
		names, _ := episode.Annotations(b, view.EpisodeID(e))
		return fmt.Errorf("score: give --annotation NAME (%s holds: %s)", ref, strings.Join(names, ", "))
	}
	a := view.ReadAnnotation(b, e, s.annotation, opts)
	if err := api.err(); err != nil {
		return err
	}
	if a.Score == nil {
		return fmt.Errorf("annotation %s of %s: %s", s.annotation, view.EpisodeID(e), a.Invalid+a.Unscored)
	}
	out := cmd.OutOrStdout()
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(a.Score)
	}
	m := &a.Annotation
	fmt.Fprintf(out, "annotation %s of %s: model %s, prompt %s, mode %s, camera %s, %d requests, $%.4f\n",
		a.Name, view.EpisodeID(e), m.Model, m.Prompt, m.Mode, m.Camera, m.Requests, m.CostUSD)
	return a.Score.WriteText(out)
}

// openStore opens an episode store for the blob readers: a directory (a
// data_dir or its episodes/) or an s3:// URL, read where it is.
func openStore(ctx context.Context, ref string) (blob.Blobs, error) {
	if !s3.IsURL(ref) {
		dir := episode.StoreDir(ref)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("%s is not an episode store (give a data_dir, its episodes/ or an s3:// URL)", ref)
		}
		return blob.Dir{Root: dir}, nil
	}
	b, id, err := remote.Open(ctx, ref)
	if err == nil && id != "" {
		err = fmt.Errorf("%s is one episode, not a store", ref)
	}
	return b, err
}

// openEpisode loads an episode (its directory, or its s3:// URL) and its
// store for the blob readers.
func openEpisode(ctx context.Context, ref string) (blob.Blobs, *episode.Episode, error) {
	var b blob.Blobs
	var id string
	if s3.IsURL(ref) {
		var err error
		if b, id, err = remote.Open(ctx, ref); err != nil {
			return nil, nil, err
		}
		if id == "" {
			return nil, nil, fmt.Errorf("%s is not an episode (give an episode's URL: .../episodes/ID)", ref)
		}
	} else {
		abs, err := filepath.Abs(ref)
		if err != nil {
			return nil, nil, err
		}
		b, id = blob.Dir{Root: filepath.Dir(abs)}, filepath.Base(abs)
	}
	e, err := episode.LoadBlobs(b, id)
	return b, e, err
}
