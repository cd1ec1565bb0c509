package apiscore

import (
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/edged-robotics/edged/score"
	"github.com/edged-robotics/edged/vlm"
)

//go:embed prompts/*.txt
var prompts embed.FS

// JudgePrompt is the judge's system prompt and PromptVersion its version
// (prompts/judge.txt, prompts/version.txt).
var JudgePrompt, PromptVersion = mustPrompt("judge.txt"), mustPrompt("version.txt")

func mustPrompt(name string) string {
	b, err := prompts.ReadFile("prompts/" + name)
	if err != nil || strings.TrimSpace(string(b)) == "" {
		panic(fmt.Sprintf("apiscore: prompts/%s missing from the build: %v", name, err))
	}
	return strings.TrimSpace(string(b))
}

// Bounds of the judge.
const (
	maxVerdicts       = 1 << 16 // verdicts kept
	maxInstruction    = 4096    // bytes of the instruction put in a request
	maxAnswerInErrors = 200     // bytes of a bad answer quoted in an error
)

// verdictSchema is the answer the judge must give.
var verdictSchema = map[string]any{
	"type": "object", "additionalProperties": false, "required": []string{"same_event", "reason"},
	"properties": map[string]any{"same_event": map[string]any{"type": "boolean"}, "reason": map[string]any{"type": "string"}},
}

// Judge asks a chat model whether two labels name the same event (a
// score.InstructedJudge). Its ForInstruction judges share its verdicts,
// its failure and its requests.
type Judge struct {
	*judgeState
	instruction string
}

type judgeState struct {
	ctx context.Context
	cl  *vlm.Client

	mu       sync.Mutex
	verdicts map[[3]string]bool
	err      error
}

// NewJudge judges with cl's model; ctx bounds every request.
func NewJudge(ctx context.Context, cl *vlm.Client) *Judge {
	return &Judge{judgeState: &judgeState{ctx: ctx, cl: cl, verdicts: map[[3]string]bool{}}}
}

// Name implements score.Judge: the model and the prompt's version.
func (j *Judge) Name() string {
	return fmt.Sprintf("llm-judge %s (chat model over the OpenAI-compatible API, prompt %s: the study's rubric)", j.cl.Model(), PromptVersion)
}

// ForInstruction implements score.InstructedJudge.
func (j *Judge) ForInstruction(instruction string) score.Judge {
	return &Judge{judgeState: j.judgeState, instruction: instruction}
}

// Agree implements score.Judge: identical labels agree; otherwise the
// model's verdict, asked once per distinct pair. After a failure (Err)
// a pair not judged yet disagrees.
func (j *Judge) Agree(pred, ref string) bool {
	if pred == ref {
		return true
	}
	key := [3]string{j.instruction, pred, ref}
	j.mu.Lock()
	defer j.mu.Unlock()
	if v, ok := j.verdicts[key]; ok || j.err != nil {
		return v
	}
	v, err := j.ask(pred, ref)
	if err != nil {
		j.err = fmt.Errorf("apiscore: judging %q against %q (--judge-model %s): %w", pred, ref, j.cl.Model(), err)
		return false
	}
	if len(j.verdicts) >= maxVerdicts {
		j.verdicts = map[[3]string]bool{}
	}
	j.verdicts[key] = v
	return v
}

func (j *Judge) ask(pred, ref string) (bool, error) {
	in := j.instruction
	if in == "" {
		in = "(not known)"
	} else if len(in) > maxInstruction {
		in = in[:maxInstruction]
	}
	text := fmt.Sprintf("Task instruction: %s\nReference label: %s\nPredicted label: %s", in, ref, pred)
	resp, err := j.cl.Complete(j.ctx, vlm.Request{System: JudgePrompt, Parts: []vlm.Part{{Text: text}},
		SchemaName: "judge_verdict", Schema: verdictSchema})
	if err != nil {
		return false, err
	}
	var ans struct {
		SameEvent *bool  `json:"same_event"`
		Reason    string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(resp.Content), &ans); err != nil || ans.SameEvent == nil {
		raw := resp.Content
		if len(raw) > maxAnswerInErrors {
			raw = raw[:maxAnswerInErrors] + "..."
		}
		return false, fmt.Errorf("the answer %q is not {\"same_event\": bool, \"reason\": str}: use a model that follows a JSON schema", raw)
	}
	return *ans.SameEvent, nil
}

// Err is the first failure, nil when every pair was judged.
func (j *Judge) Err() error {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.err
}
