package report

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"image/jpeg"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/sheet"
)

// composeLabels draws the labeling sheet of each segment from the
// camera's contact sheets (sheet.LabelImage, the one owner of that
// image), for an episode whose robot shipped none
// (sheet.ship_label_sheets off, the default): at most MaxLabelSheets,
// evenly spaced, within *left bytes. It reads each contact sheet's JPEG
// once, in time order, keeping only those a later segment still needs.
func (c *camera) composeLabels(ep blob.Blobs, segs []episode.Segment, n int, left *int64, note func(string, ...any)) []*sheetView {
	var views []*sheetView
	for i := range segs {
		views = append(views, &sheetView{File: episode.LabelName(segs[i].Index) + ".jpg", Anchor: "s-" + episode.LabelName(segs[i].Index),
			From: segs[i].StartSec, To: segs[i].EndSec, Camera: c.Name})
	}
	chosen := spaced(views, n)
	held := map[*sheetView]sheet.Sheet{} // contact sheets read, by view
	var out []*sheetView
	for _, v := range chosen {
		var near []sheet.Sheet
		for _, s := range c.all {
			if s.From > v.To {
				break // sheets are in time order
			}
			if s.To < v.From {
				delete(held, s) // no later segment needs it
				continue
			}
			if _, ok := held[s]; !ok {
				b, _, err := ep.Get(s.name, MaxImageFileBytes)
				if err != nil {
					note("%s: %v", s.File, err)
					continue
				}
				held[s] = sheet.Sheet{Meta: s.Meta, JPEG: b}
			}
			near = append(near, held[s])
		}
		img, err := sheet.LabelImage(near, v.From, v.To, nil)
		if err != nil {
			note("the labeling sheet of %s not composed: %v", v.File, err)
			continue
		}
		if int64(len(img)) > *left {
			break
		}
		*left -= int64(len(img))
		v.Meta = composedMeta(img, near, v.From, v.To)
		v.Bytes = len(img)
		v.Src = template.URL("data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(img))
		out = append(out, v)
	}
	return out
}

// composedMeta describes a composed labeling sheet as the page shows it:
// its size and the tiles of the range that fit (sheet.LabelGrid's rule).
func composedMeta(img []byte, near []sheet.Sheet, from, to float64) sheet.Meta {
	m := sheet.Meta{Kind: "label"}
	if cfg, err := jpeg.DecodeConfig(bytes.NewReader(img)); err == nil {
		m.Width, m.Height = cfg.Width, cfg.Height
	}
	for _, s := range near {
		for _, t := range s.Meta.Tiles {
			if t.Seconds >= from && t.Seconds <= to {
				m.Tiles = append(m.Tiles, t)
			}
		}
	}
	if len(m.Tiles) > 0 && len(near) > 0 {
		n, _, _ := sheet.LabelGrid(len(m.Tiles), near[0].Meta.TileWidth, near[0].Meta.TileHeight)
		m.Tiles = m.Tiles[:n]
	}
	return m
}

// shippedLabels: some camera of the episode has labeling sheets.
func shippedLabels(cams []*camera) bool {
	for _, c := range cams {
		for _, f := range c.files {
			if f.label {
				return true
			}
		}
	}
	return false
}
