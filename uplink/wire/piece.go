package wire

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Piece names one message of an episode, the same on the robot (which
// keeps what it shipped by this name until the episode is acknowledged)
// and at the receiver (which asks for what it lacks by it): its kind,
// the camera directory for sheets, labeling sheets and snippets, and its
// index: the segment's, the contact sheet's (a snippet takes its
// sheet's), the labeling sheet's segment, or the envelope Seq of a
// manifest (episode_start 0, episode_end 1).
type Piece struct {
	Kind   string
	Camera string // "" for manifests and segments
	Index  int64
}

// MaxRepairPieces bounds the pieces one repair request names.
const MaxRepairPieces = 1024

// MaxRepair caps a repair request payload.
const MaxRepair = 256 << 10

// EndPiece is the episode_end manifest's piece.
var EndPiece = Piece{Kind: KindEpisodeEnd, Index: 1}

// String is the piece's name: KIND/INDEX, or KIND/CAMERA/INDEX.
func (p Piece) String() string {
	if p.Camera == "" {
		return p.Kind + "/" + strconv.FormatInt(p.Index, 10)
	}
	return p.Kind + "/" + p.Camera + "/" + strconv.FormatInt(p.Index, 10)
}

// hasCamera: the kinds whose pieces name a camera.
func hasCamera(kind string) bool {
	return kind == KindSheet || kind == KindLabelSheet || kind == KindSnippet
}

// ParsePiece is String's inverse; it refuses a kind without pieces
// (status), a camera where there is none or none where there is one, a
// camera that is not a plain name and a negative index.
func ParsePiece(s string) (Piece, error) {
	parts := strings.Split(s, "/")
	var p Piece
	if len(parts) < 2 || len(parts) > 3 {
		return p, fmt.Errorf("wire: piece %.80q: want KIND/INDEX or KIND/CAMERA/INDEX", s)
	}
	p.Kind = parts[0]
	if p.Kind == KindStatus || !slices.Contains(Kinds, p.Kind) {
		return p, fmt.Errorf("wire: piece %.80q: kind %.40q has no pieces", s, p.Kind)
	}
	if hasCamera(p.Kind) != (len(parts) == 3) {
		return p, fmt.Errorf("wire: piece %.80q: a %s piece names a camera exactly when it is a sheet, labeling sheet or snippet", s, p.Kind)
	}
	if len(parts) == 3 {
		p.Camera = parts[1]
		if !SafeName(p.Camera) || strings.ContainsRune(p.Camera, ':') {
			return p, fmt.Errorf("wire: piece %.80q: bad camera", s)
		}
	}
	n, err := strconv.ParseInt(parts[len(parts)-1], 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != parts[len(parts)-1] {
		return p, fmt.Errorf("wire: piece %.80q: bad index", s)
	}
	p.Index = n
	return p, nil
}

// DecodeRepair parses a repair request payload and checks its names and
// pieces.
func DecodeRepair(b []byte) (*Repair, error) {
	if len(b) > MaxRepair {
		return nil, fmt.Errorf("wire: repair request of %d bytes exceeds the cap of %d", len(b), MaxRepair)
	}
	if err := checkShape(b); err != nil {
		return nil, err
	}
	var r Repair
	if _, err := r.UnmarshalMsg(b); err != nil {
		return nil, fmt.Errorf("wire: repair request: %w", err)
	}
	if !SafeName(r.Robot) || !SafeName(r.Episode) {
		return nil, fmt.Errorf("wire: repair request: bad robot %.140q or episode %.140q", r.Robot, r.Episode)
	}
	for _, s := range r.Missing {
		if _, err := ParsePiece(s); err != nil {
			return nil, fmt.Errorf("wire: repair request: %w", err)
		}
	}
	return &r, nil
}

// MarshalText is the piece's name, so JSON shows pieces as their names.
func (p Piece) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText parses a piece's name (ParsePiece).
func (p *Piece) UnmarshalText(b []byte) error {
	q, err := ParsePiece(string(b))
	if err == nil {
		*p = q
	}
	return err
}
