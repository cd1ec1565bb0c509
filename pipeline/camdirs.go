package pipeline

import (
	"fmt"
	"slices"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fielderr"
)

// cameraDir is the directory of a camera's sheets, labeling sheets and
// snippets: episode.CameraDir of its configured name, else its topic.
func cameraDir(topic, name string) string {
	if name == "" {
		name = topic
	}
	return episode.CameraDir(name)
}

// checkCameraDirs refuses two configured cameras that would share a
// directory (two named "top", or unnamed topics such as
// /cam/a/compressed and /cam_a/compressed): their sheets would
// overwrite each other on the robot and at the receiver, which counts
// them as one camera. The error names the later camera's field.
func checkCameraDirs(cams []config.CameraTopic) error {
	seen := make(map[string]int, len(cams))
	for i, c := range cams {
		dir := cameraDir(c.Topic, c.Name)
		j, taken := seen[dir]
		if !taken {
			seen[dir] = i
			continue
		}
		field := fmt.Sprintf("cameras[%d].topic", i)
		if c.Name != "" {
			field = fmt.Sprintf("cameras[%d].name", i)
		}
		return fielderr.New(field, "names camera directory %q, which cameras[%d] (%s) already uses: "+
			"sheets of the two would overwrite each other; give each camera its own name (cameras[%d].name)",
			dir, j, cams[j].Topic, i)
	}
	return nil
}

// refusedDir leaves out of t a camera topic whose directory is
// another's: Check refuses that of configured cameras, but two
// discovered (or recorded) topics can still meet, and mixing their
// frames in one directory would lose one camera silently. The first
// topic keeps the directory. Logged and counted once while it stays
// refused (cur refused it already: a discovery round repeats it).
func (p *Pipeline) refusedDir(cur, t *Topology, topic, other, dir string) {
	t.refused = append(t.refused, topic)
	if slices.Contains(cur.refused, topic) {
		return
	}
	p.stats.camerasRefused.Add(1)
	if p.log != nil {
		p.log.Warn("daemon: camera topic not captured: its directory is another camera's; "+
			"configure the cameras with distinct names (cameras[].name)", "topic", topic, "dir", dir, "camera", other)
	}
}
