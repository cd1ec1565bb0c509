package report

import (
	"fmt"
	"html/template"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/edged-robotics/edged/episode"
)

// page is everything the template shows.
type page struct {
	Episode     *episode.Episode
	Generator   string
	Generated   string
	Notes       []string
	Cameras     []*camera
	Annotations []*Annotation

	Header   []field
	Outcome  string
	Badge    string // CSS class of the outcome badge
	Span     string
	Headline string
	Axis     []tick
	FSMBars  []bar
	Segments []*segRow
	Legend   []swatch
	More     int // labels left out of the legend
	Lanes    []lane
	Clips    []*clipView

	span    float64
	colors  *palette
	summary Summary
}

type field struct{ Name, Value string }

type tick struct {
	Style template.CSS
	Label string
}

// bar is one colored block on a timeline row.
type bar struct {
	Style template.CSS
	Label string
	Title string
	Href  string
}

type lane struct {
	Name, Title string
	Bars        []bar
}

type swatch struct {
	Label string
	Style template.CSS
}

type chip struct {
	Label string
	Style template.CSS
}

type segRow struct {
	Index                     int
	Anchor                    string
	Label, Path               string
	Swatch                    template.CSS
	Start, End, Dur           string
	Outcome, Badge, Source    string
	Labels                    []*sheetView
	LabelsOmitted, LabelsSeen int
}

const maxLegend = 40

func (p *page) layout() {
	e := p.Episode
	m := e.Manifest
	p.Outcome, p.Badge = outcome(m)
	p.Span = clock(p.span, p.span)
	p.Header = []field{
		{"Robot", m.Robot},
		{"Episode", m.ID},
		{"Start (UTC)", m.Start.UTC().Format("2006-01-02 15:04:05.000")},
		{"Duration", duration(m)},
		{"Segments", strconv.Itoa(len(e.Segments))},
		{"Transitions", strconv.Itoa(len(e.Transitions))},
		{"Cost", e.Cost.String()},
	}
	if m.Name != "" {
		p.Header = append(p.Header, field{"Name", m.Name})
	}
	if m.Recovery != nil {
		p.Notes = append(p.Notes, fmt.Sprintf("recovered after a crash: %d segments closed as interrupted, %d torn bytes cut, %d corrupt regions quarantined",
			m.Recovery.Interrupted, m.Recovery.TornBytes, m.Recovery.Quarantined))
	}
	p.Headline = fmt.Sprintf("%s · %s · %s · %s", m.Start.UTC().Format("Mon 2 Jan 2006 15:04:05 UTC"),
		duration(m), plural(len(e.Segments), "segment"), plural(len(p.Cameras), "camera"))
	p.Axis = axis(p.span)
	p.segments()
	p.annotations()
	p.sheets()
	p.clips()
	p.legend()
}

func (p *page) segments() {
	for i, s := range p.Episode.Segments {
		c := p.colors.of(s.Label)
		anchor := "seg-" + strconv.Itoa(i)
		p.FSMBars = append(p.FSMBars, p.bar(s.StartSec, s.EndSec, s.Label, c,
			fmt.Sprintf("#%d %s  %s – %s  (%s)", i, s.Label, p.clock(s.StartSec), p.clock(s.EndSec), s.Outcome), "#"+anchor))
		o, badge := s.Outcome, badgeOf(s.Outcome)
		p.Segments = append(p.Segments, &segRow{Index: i, Anchor: anchor, Label: s.Label, Path: s.Path,
			Swatch: c.css(), Start: p.clock(s.StartSec), End: p.clock(s.EndSec), Dur: secs(s.EndSec - s.StartSec),
			Outcome: o, Badge: badge, Source: s.Source})
	}
}

func (p *page) annotations() {
	for k, a := range p.Annotations {
		p.matchRows(k, a)
		if !a.Placed {
			if a.Err == "" {
				a.Err = "segments in steps: not placed on the seconds timeline"
			}
			continue
		}
		for i, s := range a.Seg.Segments {
			c := p.colors.of(s.Label)
			a.Bars = append(a.Bars, p.bar(s.Start, s.End, s.Label, c,
				fmt.Sprintf("%s #%d %s  %s – %s", a.Name, i, s.Label, p.clock(s.Start), p.clock(s.End)), ""))
			a.Rows = append(a.Rows, annRow{Index: i, Start: p.clock(s.Start), End: p.clock(s.End),
				Length: secs(s.End - s.Start), Label: s.Label, Color: c.css()})
		}
	}
}

// sheets places every contact sheet on its camera's lane, names the
// segments each shown sheet overlaps and hangs labeling sheets under the
// segment they were made for.
func (p *page) sheets() {
	segs := p.Episode.Segments
	for _, c := range p.Cameras {
		for _, v := range c.all {
			v.Anchor = c.Anchor + "-" + v.Anchor
		}
		var ln lane
		ln.Name, ln.Title = "sheets", c.Name
		shown := map[*sheetView]bool{}
		for _, v := range c.Sheets {
			shown[v] = true
		}
		for _, v := range c.all {
			v.Range = p.clock(v.From) + " – " + p.clock(v.To)
			title := fmt.Sprintf("sheet %d  %s", v.Meta.Index, v.Range)
			b := p.bar(v.From, v.To, strconv.Itoa(v.Meta.Index), sheetColor(shown[v]), title, "")
			if shown[v] {
				b.Href = "#" + v.Anchor
			} else {
				b.Title += "  (not inlined)"
			}
			ln.Bars = append(ln.Bars, b)
		}
		p.Lanes = append(p.Lanes, ln)
		for _, v := range c.Sheets {
			for _, s := range segs {
				if s.StartSec < v.To && s.EndSec > v.From {
					v.Chips = append(v.Chips, chip{Label: s.Label, Style: p.colors.of(s.Label).css()})
				}
			}
		}
		for _, v := range c.labels {
			v.Anchor = c.Anchor + "-" + v.Anchor
			v.Range = p.clock(v.From) + " – " + p.clock(v.To)
			if i := segmentOf(segs, (v.From+v.To)/2); i >= 0 {
				p.Segments[i].Labels = append(p.Segments[i].Labels, v)
			}
		}
	}
}

// segmentOf returns the segment containing t, else the nearest one, else -1.
func segmentOf(segs []episode.Segment, t float64) int {
	best, dist := -1, math.Inf(1)
	for i, s := range segs {
		d := 0.0
		switch {
		case t < s.StartSec:
			d = s.StartSec - t
		case t > s.EndSec:
			d = t - s.EndSec
		}
		if d < dist {
			best, dist = i, d
		}
	}
	return best
}

func (p *page) legend() {
	for i, l := range p.colors.order {
		if i == maxLegend {
			p.More = len(p.colors.order) - maxLegend
			break
		}
		p.Legend = append(p.Legend, swatch{Label: l, Style: p.colors.byKey[key(l)].css()})
	}
}

func (p *page) bar(from, to float64, label string, c color, title, href string) bar {
	left := clamp(from/p.span*100, 0, 100)
	width := clamp((to-from)/p.span*100, 0, 100-left)
	style := fmt.Sprintf("left:%.4f%%;width:%.4f%%;%s", left, width, c.css())
	return bar{Style: template.CSS(style), Label: label, Title: title, Href: href}
}

func (p *page) clock(s float64) string { return clock(s, p.span) }

// clock formats episode seconds: 12.35s within a short episode, m:ss.s
// or h:mm:ss beyond.
func clock(s, span float64) string {
	switch {
	case span < 100:
		return strconv.FormatFloat(s, 'f', 2, 64) + "s"
	case span < 3600:
		m := math.Floor(s / 60)
		return fmt.Sprintf("%d:%04.1f", int(m), s-60*m)
	default:
		d := time.Duration(s * float64(time.Second)).Round(time.Second)
		return fmt.Sprintf("%d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
	}
}

func secs(s float64) string {
	if s < 100 {
		return strconv.FormatFloat(s, 'f', 2, 64) + "s"
	}
	return time.Duration(s * float64(time.Second)).Round(time.Second).String()
}

func duration(m episode.Manifest) string {
	if !m.Closed {
		return "open"
	}
	return secs(m.Duration().Seconds())
}

func outcome(m episode.Manifest) (string, string) {
	if !m.Closed {
		return "open (recording, or edged stopped and has not restarted)", "b-open"
	}
	s := m.Outcome
	if m.EndReason != "" {
		s += " (" + m.EndReason + ")"
	}
	return s, badgeOf(m.Outcome)
}

func badgeOf(outcome string) string {
	switch outcome {
	case episode.Completed:
		return "b-ok"
	case episode.Aborted, episode.Preempted:
		return "b-warn"
	case episode.Interrupted:
		return "b-bad"
	}
	return "b-open"
}

// axis returns 4 to 12 ticks at a round step.
func axis(span float64) []tick {
	steps := []float64{0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400}
	step := steps[len(steps)-1]
	for _, s := range steps {
		if span/s <= 12 {
			step = s
			break
		}
	}
	var out []tick
	for t := 0.0; t <= span+1e-9; t += step {
		label := clock(t, span)
		switch {
		case span < 100:
			label = strings.TrimRight(strings.TrimRight(label[:len(label)-1], "0"), ".") + "s"
		case span < 3600:
			label = fmt.Sprintf("%d:%02d", int(t)/60, int(t)%60)
		}
		out = append(out, tick{Style: template.CSS(fmt.Sprintf("left:%.4f%%", t/span*100)), Label: label})
	}
	return out
}

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }

func sheetColor(shown bool) color {
	if shown {
		return color{bg: "#5b6b7f", fg: "#ffffff"}
	}
	return color{bg: "#c9d1db", fg: "#3a4452"}
}
