package view

import (
	"slices"
	"strings"
	"time"

	"github.com/edged-robotics/edged/episode"
)

// ClipPlace is one incident clip of an episode and where it is: Where
// is WhereHere for a file in the episode's clips/ (a robot's store, or
// a sink that holds it), else what the receiver's manifest says
// (episode.ClipOnRobot: fetch it with `edged clip fetch`; or the s3://
// URL it was uploaded to).
type ClipPlace struct {
	Name   string    `json:"name"`
	Kind   string    `json:"kind"`
	At     time.Time `json:"at"`
	Bytes  int64     `json:"bytes"`
	SHA256 string    `json:"sha256,omitempty"`
	Where  string    `json:"where"`
}

// WhereHere is ClipPlace.Where of a clip file held beside the episode.
const WhereHere = "here"

// Clips lists e's incident clips by trigger time: the files of its
// clips/ and the clips its manifest lists (a receiver's), each once; a
// file held here wins over where the manifest says it is.
func Clips(e *episode.Episode) []ClipPlace {
	var out []ClipPlace
	for _, c := range e.Manifest.Clips {
		out = append(out, ClipPlace{Name: c.Name, Kind: c.Kind, At: c.At, Bytes: c.Bytes, SHA256: c.SHA256, Where: c.Where})
	}
	for _, c := range e.Clips {
		i := slices.IndexFunc(out, func(p ClipPlace) bool { return p.Name == c.Name })
		if i < 0 {
			at, kind, _ := episode.ParseClipName(c.Name)
			out = append(out, ClipPlace{Name: c.Name, Kind: kind, At: at})
			i = len(out) - 1
		}
		out[i].Bytes, out[i].Where = c.Bytes, WhereHere
	}
	slices.SortFunc(out, func(a, b ClipPlace) int { return strings.Compare(a.Name, b.Name) })
	return out
}
