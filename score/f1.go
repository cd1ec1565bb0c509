package score

import (
	"fmt"
	"math"
	"sort"
)

// MatchIoU is the IoU a predicted segment needs to match a reference one.
const MatchIoU = 0.75

// F1 is segment precision, recall and F1 at an IoU threshold.
type F1 struct {
	Matches   int     `json:"matches"`
	Predicted int     `json:"predicted"`
	Reference int     `json:"reference"`
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	// Matched[j] is the prediction index matched to reference j, or -1.
	Matched []int `json:"matched"`
}

// Snap returns a copy of pred whose first start is ref's first start and
// whose last end (the largest) is ref's last end (episode edges are ambiguous,
// SCORING.md section 2). A segment snapped past its other end is clamped
// to zero length.
func Snap(pred, ref Segmentation) Segmentation {
	out := Segmentation{Unit: pred.Unit, Segments: append([]Segment(nil), pred.Segments...)}
	if len(out.Segments) == 0 || len(ref.Segments) == 0 {
		return out
	}
	li := 0
	for i, g := range out.Segments {
		if g.End >= out.Segments[li].End {
			li = i
		}
	}
	first, last := &out.Segments[0], &out.Segments[li]
	first.Start = ref.Segments[0].Start
	last.End = ref.lastEnd()
	if first.End < first.Start {
		first.End = first.Start
	}
	if last.Start > last.End {
		last.Start = last.End
	}
	return out
}

// SegmentF1 matches pred against ref one to one at IoU >= threshold
// (after Snap), also requiring agree(pred label, ref label) when agree is
// not nil. Candidate pairs are matched greedily by decreasing IoU, which
// is the optimal matching whenever the threshold is above 0.5 (no
// segment can then reach it with two disjoint partners).
func SegmentF1(ref, pred Segmentation, threshold float64, agree func(pred, ref string) bool) (F1, error) {
	if err := sameUnit(ref, pred); err != nil {
		return F1{}, err
	}
	p := Snap(pred, ref)
	type cand struct {
		i, j int
		iou  float64
	}
	var cands []cand
	for i, a := range p.Segments {
		for j, b := range ref.Segments {
			if iou := IoU(a, b); iou >= threshold && (agree == nil || agree(a.Label, b.Label)) {
				cands = append(cands, cand{i, j, iou})
			}
		}
	}
	sort.SliceStable(cands, func(x, y int) bool { return cands[x].iou > cands[y].iou })
	usedP := make([]bool, len(p.Segments))
	res := F1{Predicted: len(p.Segments), Reference: len(ref.Segments), Matched: make([]int, len(ref.Segments))}
	for j := range res.Matched {
		res.Matched[j] = -1
	}
	for _, c := range cands {
		if usedP[c.i] || res.Matched[c.j] >= 0 {
			continue
		}
		usedP[c.i] = true
		res.Matched[c.j] = c.i
		res.Matches++
	}
	res.rates()
	return res, nil
}

// Bucket is the recall of the reference segments in one duration range
// [MinSec, MaxSec). The last bucket is open-ended: MaxSec is nil (no
// max_sec key in JSON, which has no infinity) and Name says ">=20s".
type Bucket struct {
	Name      string   `json:"name"`
	MinSec    float64  `json:"min_sec"`
	MaxSec    *float64 `json:"max_sec,omitempty"`
	Reference int      `json:"reference"`
	Matched   int      `json:"matched"`
	Recall    float64  `json:"recall"`
}

// durationBounds of SCORING.md in seconds: bucket k is [b[k], b[k+1]),
// the last one [b[len-1], +Inf).
var durationBounds = []float64{0, 2, 5, 10, 20}

// bucketName is the bucket's range as SCORING.md writes it ("<2s",
// "2-5s", ">=20s"), derived from the bounds so name and bounds agree.
func bucketName(lo float64, hi *float64) string {
	switch {
	case hi == nil:
		return fmt.Sprintf(">=%gs", lo)
	case lo == 0:
		return fmt.Sprintf("<%gs", *hi)
	}
	return fmt.Sprintf("%g-%gs", lo, *hi)
}

func (b Bucket) contains(d float64) bool {
	return d >= b.MinSec && (b.MaxSec == nil || d < *b.MaxSec)
}

// RecallByDuration buckets the reference segments of a seconds
// segmentation by duration and reports the recall of each bucket from
// f1.Matched. Empty buckets have recall 0 and Reference 0.
func RecallByDuration(ref Segmentation, f1 F1) []Bucket {
	out := make([]Bucket, len(durationBounds))
	for k, lo := range durationBounds {
		out[k].MinSec = lo
		if k+1 < len(durationBounds) {
			hi := durationBounds[k+1]
			out[k].MaxSec = &hi
		}
		out[k].Name = bucketName(lo, out[k].MaxSec)
	}
	for j, g := range ref.Segments {
		d := g.End - g.Start
		for k := range out {
			if out[k].contains(d) {
				out[k].Reference++
				if j < len(f1.Matched) && f1.Matched[j] >= 0 {
					out[k].Matched++
				}
				break
			}
		}
	}
	for k := range out {
		if out[k].Reference > 0 {
			out[k].Recall = float64(out[k].Matched) / float64(out[k].Reference)
		}
	}
	return out
}

// Baseline cuts ref's span (first start to last end) into consecutive
// segments of the mean reference duration, the fixed-length baseline of
// SCORING.md. Labels are empty. A span or mean of zero gives one segment.
func Baseline(ref Segmentation) Segmentation {
	out := Segmentation{Unit: ref.Unit}
	if len(ref.Segments) == 0 {
		return out
	}
	start, end := ref.Segments[0].Start, ref.lastEnd()
	sum := 0.0
	for _, g := range ref.Segments {
		sum += g.End - g.Start
	}
	mean := sum / float64(len(ref.Segments))
	if mean <= 0 || end <= start || (end-start)/mean > MaxSegments {
		return Segmentation{Unit: ref.Unit, Segments: []Segment{{Start: start, End: end}}}
	}
	for t := start; t < end; {
		next := math.Min(t+mean, end)
		if end-next < mean*1e-9 {
			next = end
		}
		out.Segments = append(out.Segments, Segment{Start: t, End: next})
		t = next
	}
	return out
}
