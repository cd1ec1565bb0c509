package pipeline

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/edged-robotics/edged/clip"
	"github.com/edged-robotics/edged/episode"
)

// Clips travel apart from their announcements: the uplink carries only
// what the receiver's manifest lists of each clip (wire.Clip: name,
// kind, trigger time, bytes, sha256, where), when it is written
// (announceClip: where episode.ClipOnRobot) and again when it is
// uploaded (ClipUploaded: its URL).

// announceClip is the clip stage's OnWritten: the clip is in the
// robot's store.
func (p *Pipeline) announceClip(res clip.Result) {
	at, kind, _ := episode.ParseClipName(res.Name)
	c := episode.ClipEntry{Name: res.Name, Kind: kind, At: at, Bytes: res.Bytes, SHA256: res.SHA256, Where: episode.ClipOnRobot}
	if err := p.out.Clip(res.Episode, c); err != nil {
		p.log.Warn("daemon: clip written but not announced to the receiver; its manifest will not list it", "name", res.Name,
			"episode", res.Episode, "err", err)
	}
}

// ClipUploaded announces that clip clipName of episode episodeID is
// now at url (an s3:// URL), so the receiver's manifest says where it
// is: the clip uploader's OnUploaded hook. Its size is stated when the
// file is still in the store; its checksum was announced when it was
// written. Safe from any goroutine; returns once the announcement is
// in the outbox.
func (p *Pipeline) ClipUploaded(episodeID, clipName, url string) error {
	at, kind, ok := episode.ParseClipName(clipName)
	if !ok {
		return fmt.Errorf("pipeline: %.140q is not a clip's name; nothing announced", clipName)
	}
	if err := episode.CheckID(p.cfg.RobotID, episodeID); err != nil {
		return fmt.Errorf("pipeline: clip %s not announced: %w", clipName, err)
	}
	c := episode.ClipEntry{Name: clipName, Kind: kind, At: at, Where: url}
	if fi, err := os.Stat(filepath.Join(episode.ClipDir(filepath.Join(p.store.Dir(), episodeID)), clipName)); err == nil {
		c.Bytes = fi.Size()
	}
	if _, err := episode.CheckClipEntry(c); err != nil {
		return fmt.Errorf("pipeline: clip %s not announced: %w", clipName, err)
	}
	if err := p.out.Clip(episodeID, c); err != nil {
		return fmt.Errorf("pipeline: clip %s uploaded but not announced: %w", clipName, err)
	}
	return nil
}
