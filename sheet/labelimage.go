package sheet

import (
	"fmt"
	"slices"
)

// LabelImage is the labeling image of segment [from, to] (seconds of the
// episode) of an episode whose robot shipped none (sheet.ship_label_sheets
// off, the default): SegmentImage of the camera's contact sheets within
// one VLM tile (258 tokens, episode.ComposedLabelTokens), at the sheets'
// JPEG quality. It is the one owner of that image: annotate --on-truth,
// report, export --format mcap and the ViSTa export all draw it here.
//
// contact are one camera's contact sheets (any order), their metadata
// always; a sheet's JPEG may be nil when load is given: LabelImage then
// calls load(i) for the sheets its tiles come from only (at most the
// image's tiles, LabelGrid's count; usually one or two sheets), and
// drops those bytes before it returns, so a caller holding every
// sheet's metadata holds no JPEG beyond one call's. contact is not
// modified. Errors wrap ErrSegmentInput as SegmentImage's do, or load's.
func LabelImage(contact []Sheet, from, to float64, load func(i int) ([]byte, error)) ([]byte, error) {
	q := contactQuality(contact)
	if load != nil {
		var err error
		if contact, err = withJPEGs(contact, from, to, load); err != nil {
			return nil, err
		}
	}
	return SegmentImage(contact, from, to, VLMTile, q)
}

// withJPEGs returns a copy of contact in which the sheets whose tiles
// LabelImage draws carry their JPEG (load's where they had none).
func withJPEGs(contact []Sheet, from, to float64, load func(i int) ([]byte, error)) ([]Sheet, error) {
	p, err := planSegment(contact, from, to, VLMTile)
	if err != nil {
		return nil, err
	}
	out := slices.Clone(contact)
	for _, t := range p.tiles {
		if out[t.sheet].JPEG != nil {
			continue
		}
		b, err := load(t.sheet)
		if err != nil {
			return nil, fmt.Errorf("sheet: the labeling image of [%g, %g] s: contact sheet %d: %w", from, to, contact[t.sheet].Meta.Index, err)
		}
		out[t.sheet].JPEG = b
	}
	return out, nil
}

// contactQuality is the JPEG quality of the contact sheets (the
// recipe's DefaultQuality when their metadata does not say).
func contactQuality(contact []Sheet) int {
	for _, s := range contact {
		if s.Meta.Quality > 0 {
			return s.Meta.Quality
		}
	}
	return DefaultQuality
}
