// Package annotate is edged's cloud annotator (edged annotate): it asks
// a VLM, through package vlm, to annotate the episodes of a store and
// writes each answer into the episode through its owner
// (episode.PutAnnotation), as the WGO-Bench study's method does it
// (../shared/ANNOTATION.md, docs/annotate.md).
//
// What it owns: the prompts (prompts/*.txt, embedded, with a version;
// LoadPrompts reads a user's set), the requests and their answers:
//   - segmentation (the default mode): one request per episode and
//     camera with its contact sheets in time order, the map from each
//     sheet's tiles to times in the text and the task instruction;
//     the answer {"segments":[{start_sec,end_sec,subtask}]} repaired as
//     the study did (sorted, clipped to the episode, de-overlapped;
//     counted in Repaired) or stored invalid with the raw answer;
//   - seeded relabeling of each predicted segment: three images (the
//     previous, current and next segment, sheet.SegmentImage within one
//     768-px tile, black when absent) with "segment i of n", its range,
//     the seed label and the instruction; answer {"label":...};
//   - on the truth (Options.OnTruth): one label per FSM segment from the
//     robot's labeling sheets (labels/), labels alone; an episode whose
//     robot shipped none (sheet.ship_label_sheets off, the default) has
//     them composed from its contact sheets (sheet.SegmentImage).
//
// Idempotence: an annotation's Key hashes the episode id, the model, the
// prompt set (version and text), the mode, the camera and every sheet's
// metadata and bytes; one stored under the same key is not asked for
// again. Store annotates the complete episodes lacking an annotation by
// this model and prompt version (known from listings alone); Follow
// repeats it every interval until its context ends.
//
// Bookkeeping per annotation: HTTP attempts, the API's token usage
// beside edged's estimate (sheet Meta.Tokens, the token rule for the
// images it composes), cost (Prices: flags, else a small list-price
// table), latency. The budget (Options.MaxCost) is reserved before each
// request and settled after, so concurrent episodes never overshoot it:
// a request that could is not sent (ErrBudget).
//
// Failures: an API error after the client's retries fails that
// episode's camera and stores nothing (a later run tries again); Store
// counts it and goes on. Nothing read is trusted: sheets and metadata
// are read with caps, answers are parsed, never a panic.
//
// Concurrency: an Annotator is safe for concurrent use; Store runs
// Options.Concurrency episodes at once, and the labeling requests of
// one episode's camera (relabeling, on the truth) go out together,
// Options.Concurrency at once, their labels kept in segment order (both
// errgroups, waited before they return); the client caps the requests
// in flight. Follow runs in its caller's goroutine.
package annotate
