package view

import (
	"testing"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/score"
)

// instructionJudge agrees only when given the instruction it wants.
type instructionJudge struct{ want, got string }

func (j instructionJudge) Name() string           { return "instruction" }
func (j instructionJudge) Agree(_, _ string) bool { return j.got == j.want }
func (j instructionJudge) ForInstruction(s string) score.Judge {
	return instructionJudge{want: j.want, got: s}
}

// TestScoreAnnotationInstruction: a stored annotation is judged with its
// episode's task instruction (an LLM judge reads it).
func TestScoreAnnotationInstruction(t *testing.T) {
	_, e := recorded(t) // reach [0, 1], grasp [1, 2.5]
	withInstr := *e
	withInstr.Manifest.Instruction = "pick up the cup"
	a := episode.Annotation{Segments: []episode.AnnotatedSegment{{StartSec: 0, EndSec: 1, Subtask: "a"}, {StartSec: 1, EndSec: 2.5, Subtask: "b"}}}
	s := ScoreAnnotation(&withInstr, "m@v1", a, score.Options{Judge: instructionJudge{want: "pick up the cup"}})
	if s.Score == nil || s.Score.EndToEndF1.F1 != 1 {
		t.Fatalf("judged without the episode's instruction: %+v", s)
	}
}
