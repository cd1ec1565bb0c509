package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/edged-robotics/edged/annotate"
	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/episode/remote"
	"github.com/edged-robotics/edged/vlm"
	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
)

func init() { register(newAnnotateCmd) }

type annotateFlags struct {
	vlm                   vlm.Config
	keyFile, prompts      string
	printPrompts, onTruth bool
	follow                bool
	interval              time.Duration
	maxCost, pIn, pOut    float64
}

func newAnnotateCmd() *cobra.Command {
	var f annotateFlags
	cmd := &cobra.Command{
		Use:   "annotate [--model NAME] [--base-url URL] EPISODE|STORE",
		Short: "Annotate episodes with a VLM over an OpenAI-compatible API (segments, then seeded relabeling) into annotations/",
		Long: "annotate asks a VLM (OpenAI, Gemini's OpenAI-compatible endpoint, vLLM, Ollama, llama.cpp) to segment each\n" +
			"episode from its contact sheets, then to relabel each predicted segment shown with its neighbours (--on-truth:\n" +
			"to label the FSM's own segments from the robot's labeling sheets instead), and writes the answer into the\n" +
			"episode's annotations/ (one per camera, named MODEL@PROMPT_VERSION[.MODE].CAMERA), scored by edged score.\n" +
			"EPISODE is an episode directory or an s3:// URL of one; STORE is a directory or s3:// store, of which every\n" +
			"complete episode without an annotation by that model and prompt version is annotated. An annotation with the\n" +
			"same key (episode, model, prompts, mode, camera, sheets) is never asked for again, so a run can be repeated.\n" +
			"The API is reached at --base-url or OPENAI_BASE_URL with the key of OPENAI_API_KEY or --api-key-file (a\n" +
			"systemd credential); the key is never printed or stored. --follow annotates each episode as it becomes\n" +
			"complete, polling the store every --interval, until SIGINT or SIGTERM. See docs/annotate.md.",
		Args: func(cmd *cobra.Command, args []string) error {
			if f.printPrompts {
				return cobra.NoArgs(cmd, args)
			}
			return cobra.ExactArgs(1)(cmd, args)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.printPrompts {
				p, err := f.promptSet()
				if err != nil {
					return err
				}
				return p.Write(cmd.OutOrStdout())
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			return f.run(ctx, cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0])
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.vlm.Model, "model", "", "model to ask (required)")
	defineAPIFlags(cmd, &f.vlm, &f.keyFile)
	fl.StringVar(&f.prompts, "prompts", "", "directory of your own prompts (the files --print-prompts shows)")
	fl.BoolVar(&f.printPrompts, "print-prompts", false, "print the prompts and their version, and exit")
	fl.BoolVar(&f.onTruth, "on-truth", false, "label the FSM's segments from the robot's labeling sheets (labels alone, cheaper)")
	fl.IntVar(&f.vlm.Concurrency, "concurrency", vlm.DefaultConcurrency, "requests in flight at most (and episodes at once)")
	fl.IntVar(&f.vlm.RPM, "rpm", 0, "requests per minute at most, retries included (0: no limit)")
	fl.BoolVar(&f.follow, "follow", false, "keep annotating each episode of STORE as it becomes complete, until a signal")
	fl.DurationVar(&f.interval, "interval", annotate.DefaultFollowInterval, "how often --follow looks at STORE")
	fl.Float64Var(&f.maxCost, "max-cost", 0, "stop before the spending (USD) would exceed this (0: no budget)")
	fl.Float64Var(&f.pIn, "price-input", 0, "USD per million input tokens (neither price given: the list price edged knows for a few OpenAI and Gemini models, else 0)")
	fl.Float64Var(&f.pOut, "price-output", 0, "USD per million output tokens (give it with --price-input: a price not given counts 0)")
	return cmd
}

// promptSet is --prompts' set, else the built-in one.
func (f *annotateFlags) promptSet() (annotate.Prompts, error) {
	if f.prompts == "" {
		return annotate.Builtin(), nil
	}
	return annotate.LoadPrompts(f.prompts)
}

func (f *annotateFlags) annotator() (*annotate.Annotator, error) {
	cfg, err := apiConfig(f.vlm, f.keyFile, f.vlm.Model)
	if err != nil {
		return nil, err
	}
	cl, err := vlm.New(cfg)
	if err != nil {
		return nil, err
	}
	o := annotate.Options{Client: cl, OnTruth: f.onTruth, MaxCost: f.maxCost, Concurrency: f.vlm.Concurrency,
		Prices: annotate.Prices{Input: f.pIn, Output: f.pOut}}
	if o.Prompts, err = f.promptSet(); err != nil {
		return nil, err
	}
	return annotate.New(o)
}

func (f *annotateFlags) run(ctx context.Context, out, errw io.Writer, target string) error {
	a, err := f.annotator()
	if err != nil {
		return err
	}
	store, id, err := openAnnotateTarget(ctx, target)
	if err != nil {
		return err
	}
	if id != "" {
		if f.follow {
			return fmt.Errorf("--follow needs a STORE, not one episode")
		}
		rs, err := a.Episode(ctx, store, id)
		for _, r := range rs {
			fmt.Fprintln(out, annotationLine(r))
		}
		return err
	}
	bar := progressBar(errw)
	if f.follow {
		return a.Follow(ctx, store, f.interval, bar, func(s annotate.Summary, err error) {
			printSummary(out, errw, s)
			if err != nil && !errors.Is(err, annotate.ErrBudget) { // the budget's error ends Follow, and is printed then
				fmt.Fprintf(errw, "edged annotate: %v (trying again in %s)\n", err, f.interval)
			}
		})
	}
	s, err := a.Store(ctx, store, bar)
	printSummary(out, errw, s)
	if err == nil && s.Failed > 0 {
		err = fmt.Errorf("%d episodes not annotated (above); run again to retry them", s.Failed)
	}
	return err
}

// openAnnotateTarget opens EPISODE|STORE for reading and writing: an
// s3:// URL (remote.Open), an episode directory (its parent is the
// store) or a store directory (a data_dir's episodes/).
func openAnnotateTarget(ctx context.Context, p string) (blob.Blobs, string, error) {
	if s3.IsURL(p) {
		return remote.Open(ctx, p)
	}
	if _, err := os.Stat(filepath.Join(p, episode.ManifestFile)); err == nil {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, "", err
		}
		return blob.Dir{Root: filepath.Dir(abs)}, filepath.Base(abs), nil
	}
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		return nil, "", fmt.Errorf("%s is neither an episode nor a store directory (nor an s3:// URL)", p)
	}
	return blob.Dir{Root: episode.StoreDir(p)}, "", nil
}

func annotationLine(r annotate.Result) string {
	a := r.Annotation
	state := fmt.Sprintf("%d segments", len(a.Segments))
	switch {
	case r.Skipped:
		state = "already annotated (same key): " + state
	case a.Invalid != "":
		state = "INVALID: " + a.Invalid + " (raw answer kept)"
	}
	return fmt.Sprintf("%s %s: %s; %d requests, %d+%d tokens (edged's estimate %d), $%.4f, %d ms",
		r.Episode, r.Name, state, a.Requests, a.Usage.Prompt, a.Usage.Completion, a.EstimatedTokens, a.CostUSD, a.LatencyMS)
}

func printSummary(out, errw io.Writer, s annotate.Summary) {
	for _, e := range s.Errors {
		fmt.Fprintln(errw, "edged annotate:", e)
	}
	fmt.Fprintf(out, "%d episodes to annotate: %d annotations written (%d invalid), %d already there, %d failed; $%.4f spent\n",
		s.Episodes, s.Annotated, s.Invalid, s.Skipped, s.Failed, s.CostUSD)
}

// progressBar draws on w when it is a terminal, else nothing.
func progressBar(w io.Writer) annotate.Progress {
	f, ok := w.(*os.File)
	if !ok || !isatty.IsTerminal(f.Fd()) {
		return nil
	}
	const width = 30
	return func(done, total int, id string) {
		n := width * done / max(total, 1)
		fmt.Fprintf(w, "\r[%-*s] %d/%d %s", width, strings.Repeat("#", n), done, total, id)
		if done == total {
			fmt.Fprintln(w)
		}
	}
}
