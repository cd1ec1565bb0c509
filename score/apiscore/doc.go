// Package apiscore is semantic scoring through an OpenAI-compatible API,
// the option beside score's offline defaults: Encoder, a
// score.BatchEncoder of labels by an embedding model (tau_zeta), and
// Judge, a score.InstructedJudge asking a chat model whether a predicted
// label names the same event as the reference, with the study's rubric
// (../shared/ANNOTATION.md; the prompt is the versioned file
// prompts/judge.txt, its version in prompts/version.txt) and a
// JSON-schema'd answer {"same_event": bool, "reason": str}, for
// end-to-end F1. Each names itself with its model (and the judge with its
// prompt version); score puts that name in every report.
//
// Requests: the Encoder asks once for every distinct label of a scored
// pair (score hands it all of them; one request per vlm.Config.EmbedBatch
// labels) and keeps each label's vector for the run (at most maxCached
// labels: over that the cache starts again); the Judge asks once per
// distinct (instruction, predicted, reference) and keeps the verdict
// (bounded likewise); identical labels agree without a request.
//
// Errors: score's Encoder and Judge interfaces return no error, so the
// first failure (an API error after its retries, a timeout, an answer
// off the schema) is kept and returned by Err, no request is made after
// it, and the failed vectors are empty and verdicts reject: a caller must
// check Err after scoring and not show scores when it is set. Errors come
// from package vlm, redacted of the key.
//
// Concurrency: both are safe for concurrent use; a lookup that misses
// holds the type's lock through its request, so one label or pair is
// never asked for twice. The ctx given to New* bounds every request (the
// score interfaces carry none). Imports score and vlm only.
package apiscore
