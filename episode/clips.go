package episode

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/edged-robotics/edged/blob"
)

// The incident clips of an episode (package clip writes them):
//
//	clips/clip-TIME-KIND.mcap   ClipsDir, ClipName (TIME: the trigger's, as in ids)
const (
	ClipsDir   = "clips"
	ClipPrefix = "clip-"
	ClipExt    = ".mcap"
	// ClipTopicTransitions and ClipTopicSegments are a clip's JSON
	// channels: its FSM transitions and segments in the episode format
	// (clip writes them, bag/recording reads the transitions back for a
	// replay, episode/mcapexport writes the same).
	ClipTopicTransitions = "/edged/transitions"
	ClipTopicSegments    = "/edged/segments"
)

// ClipDir is the directory of an episode's clips.
func ClipDir(epDir string) string { return filepath.Join(epDir, ClipsDir) }

// ClipName is the file name of the clip triggered at t by a trigger of
// kind (letters, digits, '-' and '_'; anything else becomes '_'), so
// that names sort by trigger time.
func ClipName(t time.Time, kind string) string {
	k := unsafeChars.ReplaceAllString(strings.ReplaceAll(kind, ".", "_"), "_")
	if k == "" {
		k = "clip"
	}
	return ClipPrefix + t.UTC().Format(idTime) + "-" + k + ClipExt
}

// IsClipName reports whether name (a base name) is exactly a name
// ClipName writes: the prefix, a trigger time, a kind of letters,
// digits, '-' and '_', the extension; never a path, never longer than
// maxClipName. Names from a peer (the wire, a URL) are checked by it.
func IsClipName(name string) bool {
	_, _, ok := ParseClipName(name)
	return ok
}

// maxClipName bounds a clip's name (ClipName's kinds are short words).
const maxClipName = 128

// Clip is one clip file of an episode, as Load lists it.
type Clip struct {
	Name  string `json:"name"` // base name (ClipName)
	Bytes int64  `json:"bytes"`
}

// clipsOf lists the clips among an episode's files (names relative to
// it), in name order: trigger time.
func clipsOf(files []blob.Info) []Clip {
	var clips []Clip
	for _, f := range files {
		dir, name := path.Split(f.Name)
		if dir == ClipsDir+"/" && IsClipName(name) {
			clips = append(clips, Clip{Name: name, Bytes: f.Size})
		}
	}
	slices.SortFunc(clips, func(a, b Clip) int { return strings.Compare(a.Name, b.Name) })
	return clips
}

// ParseClipName returns the trigger time and kind a clip's name (as
// ClipName writes it) says; ok is false for any other name.
func ParseClipName(name string) (t time.Time, kind string, ok bool) {
	if len(name) > maxClipName || !strings.HasPrefix(name, ClipPrefix) || !strings.HasSuffix(name, ClipExt) {
		return time.Time{}, "", false
	}
	rest := strings.TrimSuffix(strings.TrimPrefix(name, ClipPrefix), ClipExt)
	if len(rest) < len(idTime)+2 || rest[len(idTime)] != '-' {
		return time.Time{}, "", false
	}
	t, err := time.Parse(idTime, rest[:len(idTime)])
	if err != nil {
		return time.Time{}, "", false
	}
	kind = rest[len(idTime)+1:]
	if ClipName(t, kind) != name {
		return time.Time{}, "", false // a kind ClipName would have rewritten
	}
	return t, kind, true
}

// ClipKey is the name of clip name of episode id relative to a store's
// root (a data_dir, a sink's --out): episodes/ID/clips/NAME, so a clip
// put there is listed with its episode (Load's Clips).
func ClipKey(id, name string) string { return path.Join(EpisodesDir, id, ClipsDir, name) }
