package score

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Judge decides whether a predicted label and a reference label name the
// same subtask, for end-to-end F1.
type Judge interface {
	Name() string
	Agree(pred, ref string) bool
}

// InstructedJudge is a Judge that also reads the episode's task
// instruction (an LLM judge with the study's rubric): Score judges with
// ForInstruction(Options.Instruction).
type InstructedJudge interface {
	Judge
	ForInstruction(instruction string) Judge
}

// LexicalJudge is the built-in offline lexical judge: two labels agree
// when they are equal after normalization, or when their content words
// (lowercased, split on non-alphanumerics, stop words removed, a light
// suffix stemmer applied) overlap by at least MinOverlap of the smaller
// set (the overlap coefficient). It knows no synonyms: "pick up" and
// "grasp" disagree. Zero MinOverlap means 0.5.
type LexicalJudge struct {
	MinOverlap float64
}

// Name includes the threshold so reports say exactly what judged.
func (j LexicalJudge) Name() string {
	return fmt.Sprintf("lexical-v1 (offline lexical judge: stemmed content-word overlap >= %.2g)", j.minOverlap())
}

func (j LexicalJudge) minOverlap() float64 {
	if j.MinOverlap <= 0 {
		return 0.5
	}
	return j.MinOverlap
}

// Agree implements Judge.
func (j LexicalJudge) Agree(pred, ref string) bool {
	a, b := contentWords(pred), contentWords(ref)
	if len(a) == 0 || len(b) == 0 {
		return strings.Join(words(pred), " ") == strings.Join(words(ref), " ")
	}
	common := 0
	for w := range a {
		if b[w] {
			common++
		}
	}
	return float64(common) >= j.minOverlap()*float64(min(len(a), len(b)))
}

var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or of to in on at onto into from with by for
		it its this that these those is are be being was were then up down out off over
		robot arm gripper hand object item`) {
		stopWords[w] = true
	}
}

// contentWords is the set of stemmed non-stop words of a label.
func contentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range words(s) {
		if !stopWords[w] {
			out[stem(w)] = true
		}
	}
	return out
}

// stem strips the commonest English inflections; crude but symmetric.
func stem(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if len(w) > len(suf)+2 && strings.HasSuffix(w, suf) {
			w = strings.TrimSuffix(w, suf)
			break
		}
	}
	// "grasping" -> "grasp", "lifted" -> "lift", "placing" -> "plac" and
	// "place" -> "plac": drop a final e so both meet.
	if len(w) > 3 && strings.HasSuffix(w, "e") {
		w = w[:len(w)-1]
	}
	return w
}

// Verdicts are label-agreement decisions made by an external judge (a
// person or a model), keyed by the exact (predicted, reference) labels.
// A pair with no verdict disagrees.
type Verdicts struct {
	JudgeName string
	agree     map[[2]string]bool
}

// Name implements Judge.
func (v *Verdicts) Name() string { return "verdicts from " + v.JudgeName }

// Agree implements Judge.
func (v *Verdicts) Agree(pred, ref string) bool { return v.agree[[2]string{pred, ref}] }

// ParseVerdicts reads a judge's verdicts:
//
//	{"judge": "name", "verdicts": [{"pred": "lift it", "truth": "lift_and_carry", "agree": true}]}
func ParseVerdicts(b []byte) (*Verdicts, error) {
	if len(b) > MaxInputBytes {
		return nil, fmt.Errorf("verdicts: %d bytes, more than the %d accepted", len(b), MaxInputBytes)
	}
	var doc struct {
		Judge    string `json:"judge"`
		Verdicts []struct {
			Pred  *string `json:"pred"`
			Truth *string `json:"truth"`
			Agree *bool   `json:"agree"`
		} `json:"verdicts"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("verdicts: %w (want {\"judge\":\"name\",\"verdicts\":[{\"pred\",\"truth\",\"agree\"}]})", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("verdicts: trailing data after the JSON object")
	}
	if doc.Judge == "" {
		return nil, fmt.Errorf("verdicts: \"judge\" must name who judged")
	}
	if len(doc.Verdicts) > MaxSegments*4 {
		return nil, fmt.Errorf("verdicts: %d verdicts, more than %d", len(doc.Verdicts), MaxSegments*4)
	}
	v := &Verdicts{JudgeName: doc.Judge, agree: make(map[[2]string]bool, len(doc.Verdicts))}
	for i, x := range doc.Verdicts {
		if x.Pred == nil || x.Truth == nil || x.Agree == nil {
			return nil, fmt.Errorf("verdicts[%d]: pred, truth and agree are all required", i)
		}
		v.agree[[2]string{*x.Pred, *x.Truth}] = *x.Agree
	}
	return v, nil
}
