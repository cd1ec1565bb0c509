package view

import (
	"reflect"
	"testing"

	"github.com/edged-robotics/edged/episode"
)

// Every field of episode.Episode reaches the JSON: a field added there
// must be added to EpisodeJSON (with a snake_case key) too.
func TestEpisodeJSONCoversEpisode(t *testing.T) {
	have := map[string]bool{}
	mine, theirs := reflect.TypeFor[EpisodeJSON](), reflect.TypeFor[episode.Episode]()
	for i := range mine.NumField() {
		have[mine.Field(i).Name] = true
	}
	for i := range theirs.NumField() {
		if f := theirs.Field(i); f.IsExported() && !have[f.Name] {
			t.Errorf("episode.Episode.%s is not in EpisodeJSON (episode/view/json.go): inspect --json would drop it", f.Name)
		}
	}
}
