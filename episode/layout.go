package episode

import (
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// The layout of a data_dir and of an episode directory. It is the same
// on the robot (edged run, edged replay) and at the receiver (edged
// sink): the robot's daemon and the sink take every path from here, and
// every reader (inspect, score, export, report) reads one format.
//
//	DATA_DIR/episodes/ID/                  one episode (EpisodesDir)
//	  manifest.json                         ManifestFile
//	  segments.rec, transitions.rec         SegmentsFile, TransitionsFile
//	  quarantine/                           QuarantineDir
//	  sheets/CAMERA/sheet-NNNN.jpg, .json   SheetDir, SheetName
//	  labels/CAMERA/NAME.jpg, .json         LabelDir (labeling sheets, if shipped)
//	  snippets/CAMERA/sheet-NNNN.msgpack.zst SnippetPath
//	  annotations/NAME.json                 AnnotationsDir, AnnotationName
//	  clips/clip-TIME-KIND.mcap             ClipsDir, ClipName (clips.go)
const (
	EpisodesDir     = "episodes"
	ManifestFile    = manifestName
	SegmentsFile    = segmentsName
	TransitionsFile = transitionsName
	QuarantineDir   = quarantineName
	SheetsDir       = "sheets"
	LabelsDir       = "labels"
	SnippetsDir     = "snippets"
	// SnippetExt ends a snippet file: the zstd-compressed msgpack body.
	SnippetExt = ".msgpack.zst"
	// LockFile is the store's flock: exclusive for the one process
	// writing it (edged run's store, a sink of its own), shared among
	// sinks sharing it. Readers never take it.
	LockFile = ".lock"
)

// File names inside an episode directory.
const (
	manifestName    = "manifest.json"
	segmentsName    = "segments.rec"
	transitionsName = "transitions.rec"
	quarantineName  = "quarantine"
)

// MaxManifestBytes caps a manifest.json read, checked before allocating.
const MaxManifestBytes = 1 << 20

// ErrLocked: another process writes the store (its LockFile is held).
var ErrLocked = errors.New("episode store is locked by another process")

// maxCameraDir bounds a camera directory name; longer topics keep a
// prefix and a checksum of the whole topic, so two cameras never share
// a directory.
const maxCameraDir = 96

// CameraDir is the directory name of a camera (its topic, or the
// configured camera name): every character outside [A-Za-z0-9._-]
// becomes '_', leading and trailing '_' and '.' are cut ("camera" when
// nothing is left). It is the one rule of a camera's directory name:
// the robot names its sheet, label and snippet directories with it (of
// the configured name, else the topic: sheet.Meta.CameraID), the sink
// the directories of what it receives, and the report reads them. It is
// idempotent, as the robot applies it to a name already converted and
// the sink to the original.
func CameraDir(topic string) string {
	n := strings.Trim(strings.Map(func(r rune) rune {
		if r == '-' || r == '.' || r == '_' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, topic), "_.")
	if n == "" {
		return "camera"
	}
	if len(n) > maxCameraDir {
		n = fmt.Sprintf("%s-%08x", n[:maxCameraDir-9], crc32.ChecksumIEEE([]byte(topic)))
	}
	return n
}

// SheetDir is where the contact sheets of camera (a topic or name) are.
func SheetDir(epDir, camera string) string {
	return filepath.Join(epDir, SheetsDir, CameraDir(camera))
}

// LabelDir is where the labeling sheets of camera are.
func LabelDir(epDir, camera string) string {
	return filepath.Join(epDir, LabelsDir, CameraDir(camera))
}

// SheetName is the base name (no extension) of contact sheet index.
func SheetName(index int) string { return fmt.Sprintf(SheetPrefix+"%04d", index) }

// SheetPrefix starts the name of every contact sheet (and its snippet);
// LabelPrefix that of every labeling sheet.
const (
	SheetPrefix = "sheet-"
	LabelPrefix = "label-"
)

// LabelName is the base name (no extension) of the labeling sheet of
// segment index (sheet.Name names the sheets it writes so).
func LabelName(index int) string { return fmt.Sprintf(LabelPrefix+"%04d", index) }

// SnippetPath is the file of the state snippet of contact sheet index.
func SnippetPath(epDir, camera string, index int) string {
	return filepath.Join(epDir, SnippetsDir, CameraDir(camera), SheetName(index)+SnippetExt)
}

// unsafeChars are the characters an id never holds.
var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// idTime is the time part of an episode id (ROS time of its start, UTC).
const idTime = "20060102T150405.000Z"

var idTimeRe = regexp.MustCompile(`-[0-9]{8}T[0-9]{6}\.[0-9]{3}Z(-|$)`)

// MaxIDLen bounds an episode id (the wire's name limit is 128).
const MaxIDLen = 120

// NewID is the id of an episode of robot starting at start, named name
// (optional): ROBOT-YYYYMMDDThhmmss.mmmZ[-NAME], every character of the
// name outside [A-Za-z0-9._-] replaced by '_', at most MaxIDLen bytes.
// Store.Begin adds -2, -3... when the id is taken. The robot part is
// empty only for a store without a robot id (tests, tools); such ids
// are never accepted by a receiver.
func NewID(robot string, start time.Time, name string) string {
	base := start.UTC().Format(idTime)
	if r := unsafeChars.ReplaceAllString(robot, "_"); r != "" {
		base = r + "-" + base
	}
	if n := strings.Trim(unsafeChars.ReplaceAllString(name, "_"), "._"); n != "" {
		base += "-" + n
	}
	if len(base) > MaxIDLen {
		base = base[:MaxIDLen]
	}
	return base
}

// splitID splits an id NewID made into its robot ("" for a store
// without a robot id) and its start; ok is false for an id of another
// form. The robot ends where RobotOf says.
func splitID(id string) (robot string, start time.Time, ok bool) {
	at := 0
	if loc := idTimeRe.FindStringIndex(id); loc != nil && loc[0] > 0 {
		robot, at = id[:loc[0]], loc[0]+1
	}
	if len(id) < at+len(idTime) {
		return "", time.Time{}, false
	}
	start, err := time.Parse(idTime, id[at:at+len(idTime)])
	if err != nil {
		return "", time.Time{}, false
	}
	return robot, start, true
}

// SessionName is the name part of the id of a session: the sheets of a
// robot that has no FSM, shipped like an episode's.
const SessionName = "session"

// RobotOf returns the robot an episode id belongs to: the part before
// the first "-YYYYMMDDThhmmss.mmmZ" that ends the id or is followed by
// '-'. ok is false for an id that does not have that form or uses a
// character outside [A-Za-z0-9._-].
func RobotOf(id string) (robot string, ok bool) {
	if id == "" || len(id) > MaxIDLen+8 || unsafeChars.MatchString(id) || id[0] == '.' {
		return "", false
	}
	loc := idTimeRe.FindStringIndex(id)
	if loc == nil || loc[0] == 0 {
		return "", false
	}
	return id[:loc[0]], true
}

// IsSession reports whether id is a session's (NewID with SessionName,
// and Store.Begin's -N when it was taken): sheets of a robot without an
// FSM, which no end manifest closes at a receiver.
func IsSession(id string) bool {
	robot, ok := RobotOf(id)
	if !ok {
		return false
	}
	name := strings.TrimPrefix(id[len(robot)+1+len(idTime):], "-")
	n, found := strings.CutPrefix(name, SessionName)
	if !found {
		return false
	}
	return n == "" || (len(n) > 1 && n[0] == '-' && strings.Trim(n[1:], "0123456789") == "")
}

// CheckID is the rule every shipped episode id follows: it is one that
// NewID makes for robot (RobotOf(id) == robot). The robot's uplink
// checks it before sending, the sink on receipt: so episodes of two
// robots can never share a directory, and an id can never name one of
// the sink's own files.
func CheckID(robot, id string) error {
	owner, ok := RobotOf(id)
	switch {
	case !ok:
		return fmt.Errorf("episode: id %.140q is not of the form ROBOT-%s[-NAME]", id, "YYYYMMDDThhmmss.mmmZ")
	case owner != robot:
		return fmt.Errorf("episode: id %.140q belongs to robot %.140q, not %.140q", id, owner, robot)
	}
	return nil
}
