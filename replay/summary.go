package replay

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/edged-robotics/edged/bag/recording"
	"github.com/edged-robotics/edged/capture"
)

// Summary is what a replay did.
type Summary struct {
	Messages uint64        // messages handled
	BagTime  time.Duration // recording time covered
	Wall     time.Duration // time the replay took
	Episodes uint64
	Segments uint64
	Sheets   uint64
	Topics   []capture.TopicStats
	// Unused counts the messages of the replayed topics that could not
	// be used (malformed, of a type or format their role cannot use,
	// over a size cap, before the first /clock); each topic's are named
	// in Damage, or, for those before the first /clock (not damage),
	// logged as a warning.
	Unused uint64
	// Gaps are the stretches of the recording longer than
	// replay.max_gap without a message: each ended the open episode at
	// its start, and the replay went on at its end. Each is also logged
	// as a warning.
	Gaps []Gap
	// Damage lists what of the bags could not be read (a damaged or cut
	// short file, an MCAP data section that fails its CRC), each naming
	// the bag and the byte offset; the rest was replayed. Each is also
	// logged as a warning.
	Damage []string
	// Out is the output directory (data_dir) and MaxGap replay.max_gap.
	Out    string
	MaxGap time.Duration
}

// Gap is a stretch of a recording without a message, from the last
// message before it to the first after it.
type Gap struct{ From, To time.Time }

func (g Gap) String() string {
	return fmt.Sprintf("no message for %s, from %s to %s", g.To.Sub(g.From), g.From.UTC().Format(time.RFC3339Nano), g.To.UTC().Format(time.RFC3339Nano))
}

// Print writes the summary as `edged replay` reports it: what was made
// and how fast, then the count of unusable messages and of gaps, whose
// details the log listed.
func (s Summary) Print(w io.Writer) error {
	speed := 0.0
	if s.Wall > 0 {
		speed = s.BagTime.Seconds() / s.Wall.Seconds()
	}
	_, err := fmt.Fprintf(w, "replayed %d messages (%.1f s of recording) in %s (%.0fx real time): %d episodes, %d segments, %d sheets in %s\n",
		s.Messages, s.BagTime.Seconds(), s.Wall.Round(time.Millisecond), speed, s.Episodes, s.Segments, s.Sheets, s.Out)
	if err == nil && s.Unused > 0 {
		_, err = fmt.Fprintf(w, "%d messages could not be used (listed above)\n", s.Unused)
	}
	if err == nil && len(s.Gaps) > 0 {
		_, err = fmt.Fprintf(w, "%d gaps longer than replay.max_gap (%s) each ended the episode before them (listed above)\n",
			len(s.Gaps), s.MaxGap)
	}
	return err
}

// summarize fills in what the stages, capture and the bags counted.
func (r *Replay) summarize(sum *Summary, readers []recording.Recording) {
	st := r.pipe.Stats()
	sum.Episodes, sum.Segments, sum.Sheets = st.Episodes, st.Segments, st.Sheets
	sum.Topics = r.rp.Stats()
	r.reportUnused(sum)
	for _, rec := range readers {
		sum.BagTime += rec.Info().Duration()
	}
}

// reportUnused counts and reports, per topic, the messages capture
// could not use: damage (ErrDamagedInput) but for those dropped before
// the first /clock, which a recording that starts its clock late has.
func (r *Replay) reportUnused(sum *Summary) {
	for _, ts := range sum.Topics {
		var parts []string
		var unused uint64
		add := func(n uint64, what string) {
			if n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, what))
				unused += n
			}
		}
		add(ts.DecodeErrors, "malformed")
		add(ts.UnknownType, "of a type or format the role cannot use")
		add(ts.OversizeDrops, "over the role's size cap (ros.max_message, ros.max_state_message)")
		add(ts.TooManyJoints, "with more joints than the cap")
		add(ts.SubscriptionDrops, "dropped by a full queue")
		add(ts.Errors, "in failed connections")
		if len(parts) > 0 {
			sum.Unused += unused
			r.damaged(sum, fmt.Sprintf("topic %s (%s, %s): %d of its %d messages could not be used: %s",
				ts.Topic, ts.Role, ts.Type, unused, ts.Messages, strings.Join(parts, ", ")))
		}
		if ts.NoClockDrops > 0 {
			sum.Unused += ts.NoClockDrops
			r.log.Warn("replay: messages before the first /clock message were not used", "topic", ts.Topic, "messages", ts.NoClockDrops)
		}
	}
}

func (r *Replay) damaged(sum *Summary, what string) {
	sum.Damage = append(sum.Damage, what)
	r.log.Warn("replay: damaged input", "problem", what)
}
