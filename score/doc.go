// Package score compares two segmentations of one episode: a prediction
// (for example a cloud VLM's annotation) against a reference (for example
// the FSM ground truth edged recorded). It implements every metric of
// docs/SCORING.md:
//
//   - tau_k and tau_zeta, the temporal and semantic similarity of the
//     SIMILARITY algorithm, computed over every intersecting pair exactly
//     as written there (pairs that only touch at one point intersect too:
//     with integer steps such a pair has weight 1/L and IoU 0, so step
//     triples that share end points, [0,10] then [10,20], score just under
//     1 against themselves; write inclusive steps, [0,9] then [10,19]);
//   - segment F1 at IoU >= 0.75 after snapping the episode edges, its
//     end-to-end variant with a label judge, recall by duration bucket and
//     the fixed-length baseline; Pool, the F1 of several results'
//     counts added up (the pooled F1 of package score/fleet).
//
// Score also returns a Matching (built by Explain from the F1 results
// themselves, so it cannot disagree with them): for every truth and
// every predicted segment, its best IoU and with which segment, its
// one-to-one match at IoU >= 0.75 or none, the judge's verdict on the
// matched pair and its end-to-end match. `edged score` (text and JSON)
// and `edged report` show this one matching. Mixed units without a
// usable step rate return a *UnitError naming each side's unit and the
// flag that fixes it. The open-ended duration bucket (>=20s) has no
// MaxSec (nil, no max_sec in JSON).
//
// Labels are encoded by a pluggable Encoder; the built-in one,
// HashedNGram, needs no model: it is a hashed character-n-gram plus word
// bag-of-features embedding compared by cosine similarity, and reports
// name it. Label agreement for end-to-end F1 comes from a Judge: either
// verdicts supplied by an external judge (ParseVerdicts) or the built-in
// offline lexical judge (LexicalJudge). Whatever encoder and judge score,
// their Name is what the Report says produced tau_zeta and end-to-end
// F1 (Similarity.Encoder, Report.Judge): the one place reports take it
// from. Two optional interfaces serve API-backed ones (score/apiscore):
// a BatchEncoder is given all distinct labels of a pair at once, an
// InstructedJudge the episode's task instruction (Options.Instruction).
//
// Inputs: ParseSegmentation reads the two JSON formats of SCORING.md
// (the {"segments":[...]} object in seconds and a list of
// [start, end, "label"] integer-step triples); package episode/view turns a
// recorded episode into a Segmentation. Every parser caps what it reads
// and returns an error on bad input, never panics.
//
// The package is pure: no I/O, no goroutines, nothing imported from
// above it. All functions are safe for concurrent use.
package score
