package receive

import (
	"errors"
	"fmt"

	"github.com/edged-robotics/edged/episode"
)

// Clip lists an incident clip the robot announced in the episode's
// manifest (Manifest.Clips), or updates where it is: the robot
// announces each clip when it is written (where: the robot) and again
// once uploaded (its s3:// URL), before or after the episode completed.
// The manifest is changed through update, as the robot's start and end
// are: conditional on the version read in a shared store. The same
// announcement again is a no-op; an announcement that is not a clip's
// (episode.CheckClipEntry), one beyond episode.MaxClips or a clip held
// with another content is ErrRefused (the sink counts the drop), and
// nothing is written.
func (r *Receiver) Clip(robot, id string, c episode.ClipEntry) (completed bool, err error) {
	c, err = episode.CheckClipEntry(c)
	if err != nil {
		return false, fmt.Errorf("%w: %w", ErrRefused, err)
	}
	defer r.lockEpisode(id)()
	return r.update(robot, id, func(e *received) error {
		clips, _, err := episode.MergeClip(e.m.Clips, c)
		switch {
		case errors.Is(err, episode.ErrClipConflict):
			return fmt.Errorf("%w: %s: %w", ErrConflict, id, err)
		case err != nil:
			return fmt.Errorf("%w: %s: %w", ErrRefused, id, err)
		}
		e.m.Clips = clips
		return nil
	})
}
