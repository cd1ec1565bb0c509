package view

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/edged-robotics/edged/episode"
)

// WriteList renders the episodes as a table for a terminal.
func WriteList(w io.Writer, ms []episode.Manifest) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "EPISODE\tSTART (UTC)\tDURATION\tSEGMENTS\tOUTCOME\tEND\tUPLOADED\tINSTRUCTION")
	for _, m := range ms {
		outcome, dur := m.Outcome, fmtDur(m.Duration())
		if !m.Closed {
			outcome, dur = "open", "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\n", m.ID, m.Start.UTC().Format("2006-01-02 15:04:05.000"), dur,
			m.Segments, outcome, dash(m.EndReason), uploaded(&m), clip(m.Instruction, 48))
	}
	if len(ms) == 0 {
		fmt.Fprintln(tw, "(no episodes)")
	}
	return tw.Flush()
}

// WriteTimeline renders one episode: its manifest, then one line per
// segment (start, end, duration, label, outcome, source).
func WriteTimeline(w io.Writer, e *episode.Episode) error {
	m := e.Manifest
	state := m.Outcome + " (" + dash(m.EndReason) + ")"
	if !m.Closed {
		state = "open (being recorded, or edged stopped and has not restarted yet)"
	}
	fmt.Fprintf(w, "episode      %s\nrobot        %s\nstart        %s\nduration     %s\noutcome      %s\n",
		m.ID, m.Robot, m.Start.UTC().Format(time.RFC3339Nano), fmtDur(m.Duration()), state)
	if m.Instruction != "" {
		fmt.Fprintf(w, "instruction  %s\n", m.Instruction)
	}
	fmt.Fprintf(w, "segments     %d    transitions %d\n", len(e.Segments), len(e.Transitions))
	if s := delivery(e); s != "" {
		fmt.Fprintf(w, "%s\n", s)
	}
	fmt.Fprintf(w, "cost         %s\n", e.Cost)
	if m.Recovery != nil {
		fmt.Fprintf(w, "recovered    after a crash: %d segments closed as interrupted, %d torn bytes cut, %d corrupt regions quarantined\n",
			m.Recovery.Interrupted, m.Recovery.TornBytes, m.Recovery.Quarantined)
	}
	for _, v := range m.Verdicts {
		verdict := "UNSAT"
		if v.Sat {
			verdict = "SAT"
		}
		fmt.Fprintf(w, "check        %-5s %s: %s\n", verdict, clip(v.Check, 60), clip(v.Witness, 200))
	}
	for _, p := range e.Problems {
		fmt.Fprintf(w, "PROBLEM      %s\n", p)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "#\tSTART\tEND\tDURATION\tLABEL\tOUTCOME\tSOURCE")
	for i, s := range e.Segments {
		fmt.Fprintf(tw, "%d\t%8.3fs\t%8.3fs\t%s\t%s\t%s\t%s\n", i, s.StartSec, s.EndSec, fmtDur(s.End.Sub(s.Start)),
			clip(s.Label, 60), s.Outcome, s.Source)
	}
	return tw.Flush()
}

// uploaded is the UPLOADED column: on a robot whether the receiver
// acknowledged the episode (and, when it asked for pieces, how many it
// lacks); at a receiver (its manifests hold Held) whether it is complete
// and since when it waits for the rest.
func uploaded(m *episode.Manifest) string {
	switch {
	case m.Held != nil && m.Complete:
		return "complete"
	case m.Held != nil && m.Closed && !m.EndArrived.IsZero():
		return "incomplete since " + m.EndArrived.UTC().Format("2006-01-02 15:04:05")
	case m.Held != nil:
		return "incomplete"
	case m.Uploaded:
		return "yes"
	case m.Lacking != nil:
		return fmt.Sprintf("no, receiver lacks %d%s", len(m.Lacking.Pieces), plus(m.Lacking.More))
	}
	return "no"
}

// delivery is the timeline's line on what the receiver lacks: at a
// receiver from the files (episode.Load's Lack), on a robot from the
// receiver's last repair request; "" when nothing is known to lack.
func delivery(e *episode.Episode) string {
	const shown = 12
	list := func(pieces []string, more bool) string {
		s := strings.Join(pieces[:min(len(pieces), shown)], " ")
		if more || len(pieces) > shown {
			s += " ..."
		}
		return s
	}
	if l := e.Lack; l != nil {
		names := make([]string, len(l.Pieces))
		for i, p := range l.Pieces {
			names[i] = p.String()
		}
		since := ""
		if !l.Since.IsZero() {
			since = ", its end arrived " + l.Since.UTC().Format(time.RFC3339)
		}
		return fmt.Sprintf("incomplete   lacks %d%s pieces%s: %s", len(names), plus(l.More), since, list(names, l.More))
	}
	if l := e.Manifest.Lacking; l != nil && !e.Manifest.Uploaded {
		return fmt.Sprintf("uploaded     no: the receiver lacks %d%s pieces (asked %s, last %s): %s", len(l.Pieces), plus(l.More),
			l.First.UTC().Format(time.RFC3339), l.Last.UTC().Format(time.RFC3339), list(l.Pieces, l.More))
	}
	return ""
}

func plus(more bool) string {
	if more {
		return "+"
	}
	return ""
}

func fmtDur(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.3fs", d.Seconds())
	case d < time.Hour:
		return fmt.Sprintf("%dm%06.3fs", int(d.Minutes()), math.Mod(d.Seconds(), 60))
	default:
		return d.Round(time.Second).String()
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// clip shortens s for a table cell and makes control bytes visible.
func clip(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// WriteClips lists the episode's incident clips (Clips): those in its
// clips/ and those its manifest says are elsewhere, with where.
func WriteClips(out io.Writer, e *episode.Episode) error {
	clips := Clips(e)
	if len(clips) == 0 {
		return nil
	}
	if _, err := fmt.Fprintf(out, "\nclips (%s/ here; elsewhere: where the receiver's manifest says):\n", episode.ClipsDir); err != nil {
		return err
	}
	for _, c := range clips {
		if _, err := fmt.Fprintf(out, "  %s  %d bytes  %s\n", c.Name, c.Bytes, clip(c.Where, 200)); err != nil {
			return err
		}
	}
	return nil
}
