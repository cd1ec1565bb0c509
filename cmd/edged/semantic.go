package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/edged-robotics/edged/score"
	"github.com/edged-robotics/edged/score/apiscore"
	"github.com/edged-robotics/edged/vlm"
	"github.com/spf13/cobra"
)

// defineAPIFlags defines how a command reaches the OpenAI-compatible API,
// into cfg and keyFile: --base-url, --api-key-file (the key itself only
// from the environment or that file, never a flag), --timeout and
// --retries. apiConfig completes what they set.
func defineAPIFlags(cmd *cobra.Command, cfg *vlm.Config, keyFile *string) {
	f := cmd.Flags()
	f.StringVar(&cfg.BaseURL, "base-url", "", "API base URL (default: OPENAI_BASE_URL, else OpenAI's)")
	f.StringVar(keyFile, "api-key-file", "", "read the API key from this file (default: OPENAI_API_KEY)")
	f.DurationVar(&cfg.Timeout, "timeout", vlm.DefaultTimeout, "timeout of one request attempt (a hung request is retried)")
	f.IntVar(&cfg.MaxRetries, "retries", vlm.DefaultMaxRetries, "retries of a request (429 and 5xx honour Retry-After; timeouts)")
}

// apiConfig is cfg of defineAPIFlags for model, with the key of keyFile
// (else the SDK reads OPENAI_API_KEY) and --retries 0 meaning none.
func apiConfig(cfg vlm.Config, keyFile, model string) (vlm.Config, error) {
	cfg.Model = model
	if keyFile != "" {
		k, err := vlm.KeyFromFile(keyFile)
		if err != nil {
			return cfg, fmt.Errorf("--api-key-file: %w", err)
		}
		cfg.APIKey = k
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = -1 // --retries 0: none
	}
	return cfg, nil
}

const semanticHelp = "--embed-model and --judge-model score semantically through an OpenAI-compatible API instead: tau_zeta\n" +
	"by that embedding model, end-to-end F1 by that chat model judging each matched pair of labels with the\n" +
	"study's rubric (score/apiscore/prompts); the output names both. The API is reached at --base-url or\n" +
	"OPENAI_BASE_URL with the key of OPENAI_API_KEY or --api-key-file (docs/annotate.md, semantic scoring)."

// semanticFlags are the options of semantic scoring through the API
// (edged score and edged report); the offline encoder and lexical judge
// stay the default.
type semanticFlags struct {
	embedModel, judgeModel, keyFile string
	api                             vlm.Config
}

func (s *semanticFlags) define(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&s.embedModel, "embed-model", "", "embedding model of the API for tau_zeta (default: the offline encoder)")
	f.StringVar(&s.judgeModel, "judge-model", "", "chat model of the API judging labels for end-to-end F1 (default: the offline lexical judge)")
	defineAPIFlags(cmd, &s.api, &s.keyFile)
}

// semantic is the API encoder and judge a command scores with (nil: the
// default's).
type semantic struct {
	enc   *apiscore.Encoder
	judge *apiscore.Judge
}

// open makes the encoder and judge the flags ask for; ctx bounds their
// requests. verdicts says whether --verdicts gives a judge already.
func (s *semanticFlags) open(ctx context.Context, verdicts bool) (semantic, error) {
	var out semantic
	if s.judgeModel != "" && verdicts {
		return out, errors.New("give --verdicts or --judge-model, not both: each is the judge of end-to-end F1")
	}
	if s.embedModel == "" && s.judgeModel == "" {
		return out, nil
	}
	client := func(model string) (*vlm.Client, error) {
		cfg, err := apiConfig(s.api, s.keyFile, model)
		if err != nil {
			return nil, err
		}
		return vlm.New(cfg)
	}
	if s.embedModel != "" {
		cl, err := client(s.embedModel)
		if err != nil {
			return out, err
		}
		out.enc = apiscore.NewEncoder(ctx, cl)
	}
	if s.judgeModel != "" {
		cl, err := client(s.judgeModel)
		if err != nil {
			return out, err
		}
		out.judge = apiscore.NewJudge(ctx, cl)
	}
	return out, nil
}

// apply puts the API encoder and judge, where given, into o.
func (s semantic) apply(o *score.Options) {
	if s.enc != nil {
		o.Encoder = s.enc
	}
	if s.judge != nil {
		o.Judge = s.judge
	}
}

// err is the first failure of the API encoder or judge: scores made
// with it must not be shown.
func (s semantic) err() error {
	var errs []error
	if s.enc != nil {
		errs = append(errs, s.enc.Err())
	}
	if s.judge != nil {
		errs = append(errs, s.judge.Err())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("semantic scoring failed, no scores shown: %w", err)
	}
	return nil
}
