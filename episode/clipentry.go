package episode

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ClipEntry is one incident clip a receiver's manifest lists
// (Manifest.Clips): what the robot announced of it (wire.Clip) and where
// it is now.
type ClipEntry struct {
	Name   string    `json:"name"` // ClipName
	Kind   string    `json:"kind"` // its trigger kind
	At     time.Time `json:"at"`   // trigger time (stream clock)
	Bytes  int64     `json:"bytes,omitempty"`
	SHA256 string    `json:"sha256,omitempty"` // lowercase hex
	// Where it is: ClipOnRobot (in the robot's store, for `edged clip
	// fetch`) or the s3:// URL it was uploaded to.
	Where string `json:"where"`
}

// ClipOnRobot is ClipEntry.Where of a clip kept in the robot's store.
const ClipOnRobot = "robot"

// Caps on what a peer announces of clips.
const (
	MaxClips     = 256  // clips one manifest lists (its JSON stays far below MaxManifestBytes)
	maxClipWhere = 1024 // bytes of an s3:// URL
	maxClipBytes = 1 << 40
)

// ErrTooManyClips: a manifest lists MaxClips clips already.
var ErrTooManyClips = fmt.Errorf("episode: more than %d clips announced; refused", MaxClips)

// ErrClipConflict: a clip announced again with another kind, time, size
// or checksum than the one held.
var ErrClipConflict = errors.New("episode: clip announced with another content")

// CheckClipEntry refuses a clip announcement a peer could forge: a name
// that is not ClipName's, a kind or time other than its name's, a size
// out of range, a checksum that is not 64 lowercase hex digits, a place
// that is neither the robot nor an s3:// URL. The entry it returns
// has its name's trigger time (milliseconds), so announcements of one
// clip compare equal however precise their time was.
func CheckClipEntry(c ClipEntry) (ClipEntry, error) {
	at, kind, ok := ParseClipName(c.Name)
	switch {
	case !ok:
		return c, fmt.Errorf("episode: clip name %.140q is not a clip's (clip-TIME-KIND.mcap)", c.Name)
	case c.Kind != kind || !c.At.Truncate(time.Millisecond).Equal(at):
		return c, fmt.Errorf("episode: clip %s announced as kind %.40q at %v, its name says %s at %v", c.Name, c.Kind, c.At, kind, at)
	case c.Bytes < 0 || c.Bytes > maxClipBytes:
		return c, fmt.Errorf("episode: clip %s of %d bytes", c.Name, c.Bytes)
	case c.SHA256 != "" && !isHex64(c.SHA256):
		return c, fmt.Errorf("episode: clip %s: sha256 %.80q is not 64 lowercase hex digits", c.Name, c.SHA256)
	case c.Where == ClipOnRobot:
		c.At = at
		return c, nil
	case len(c.Where) > maxClipWhere || !strings.HasPrefix(c.Where, "s3://") || len(c.Where) == len("s3://") ||
		strings.ContainsFunc(c.Where, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return c, fmt.Errorf("episode: clip %s: where %.140q is neither %q nor an s3:// URL", c.Name, c.Where, ClipOnRobot)
	}
	c.At = at
	return c, nil
}

func isHex64(s string) bool {
	return len(s) == 64 && !strings.ContainsFunc(s, func(r rune) bool { return !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') })
}

// MergeClip adds announcement c (checked: CheckClipEntry) to clips (in
// name order) and reports whether anything changed. The same
// announcement again changes nothing; an upload's URL replaces
// ClipOnRobot, never the other way round (announcements may arrive out
// of order); a size or checksum unstated before is filled in. Another
// kind, time, size or checksum is ErrClipConflict; a new clip beyond
// MaxClips is ErrTooManyClips.
func MergeClip(clips []ClipEntry, c ClipEntry) ([]ClipEntry, bool, error) {
	i, found := slices.BinarySearchFunc(clips, c.Name, func(e ClipEntry, name string) int { return strings.Compare(e.Name, name) })
	if !found {
		if len(clips) >= MaxClips {
			return clips, false, ErrTooManyClips
		}
		return slices.Insert(clips, i, c), true, nil
	}
	old := clips[i]
	if old.Kind != c.Kind || !old.At.Equal(c.At) || differ(old.Bytes, c.Bytes) || differ(old.SHA256, c.SHA256) {
		return clips, false, fmt.Errorf("%w: %s", ErrClipConflict, c.Name)
	}
	merged := old
	merged.Bytes = max(old.Bytes, c.Bytes)
	merged.SHA256 = max(old.SHA256, c.SHA256)
	if c.Where != ClipOnRobot {
		merged.Where = c.Where
	}
	if merged == old {
		return clips, false, nil
	}
	clips = slices.Clone(clips)
	clips[i] = merged
	return clips, true, nil
}

// differ reports whether a and b are both stated (non-zero) and differ.
func differ[T comparable](a, b T) bool {
	var zero T
	return a != zero && b != zero && a != b
}
