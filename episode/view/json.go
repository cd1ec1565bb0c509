package view

import "github.com/edged-robotics/edged/episode"

// EpisodeJSON is the JSON of one episode (`edged inspect --json
// EPISODE`). episode.Episode has no JSON tags (it is an in-memory type;
// its Manifest is the on-disk format and is not changed here), so it
// would print Go field names (Manifest, Dir) beside the manifest's
// snake_case. Every field of episode.Episode must appear here (a test
// checks it).
type EpisodeJSON struct {
	Manifest    episode.Manifest     `json:"manifest"`
	Dir         string               `json:"dir"`
	Segments    []episode.Segment    `json:"segments"`
	Transitions []episode.Transition `json:"transitions"`
	Problems    []string             `json:"problems"`
	Cost        episode.Cost         `json:"cost"`
	// Lack: what a receiver lacks of an episode its end closed (omitted
	// elsewhere).
	Lack *episode.Lack `json:"lack,omitempty"`
	// Annotations: the episode's stored annotations, scored (omitted
	// when none).
	Annotations []AnnotationScore `json:"annotations,omitempty"`
	// Clips: the episode's incident clips and where each is (Clips;
	// omitted when none).
	Clips []ClipPlace `json:"clips,omitempty"`
}

// NewEpisodeJSON is e as EpisodeJSON: empty lists print as [], never
// null.
func NewEpisodeJSON(e *episode.Episode) EpisodeJSON {
	return EpisodeJSON{Manifest: e.Manifest, Dir: e.Dir, Segments: nonNil(e.Segments),
		Transitions: nonNil(e.Transitions), Problems: nonNil(e.Problems), Cost: e.Cost, Lack: e.Lack, Clips: Clips(e)}
}

// nonNil makes an empty list print as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
