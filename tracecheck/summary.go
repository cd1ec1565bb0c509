package tracecheck

import (
	"sort"

	"github.com/edged-robotics/edged/episode"
)

// Rate counts one group's verdicts.
type Rate struct {
	Check string `json:"check"`
	// Group is the robot or the day (YYYY-MM-DD, UTC); "" for the whole
	// store.
	Group    string  `json:"group,omitempty"`
	Episodes int     `json:"episodes"`
	Sat      int     `json:"sat"`
	PassRate float64 `json:"pass_rate"`
}

// Summary is the pass rate per check over a store, per robot and per day.
type Summary struct {
	Checks []Rate `json:"checks"`
	Robots []Rate `json:"robots"`
	Days   []Rate `json:"days"`
}

// Summarize aggregates the verdicts of the manifests (each with its
// episode's verdicts).
func Summarize(ms []episode.Manifest) Summary {
	var t Tally
	for _, m := range ms {
		t.Add(m)
	}
	return t.Summary()
}

// Tally aggregates verdicts one episode at a time, for a store too
// large to hold: it keeps one count per check and group, whatever the
// number of episodes. The zero Tally is empty.
type Tally struct {
	all, robots, days map[tallyKey]*Rate
}

type tallyKey struct{ check, group string }

// Add counts the verdicts of m (an episode's manifest with them).
func (t *Tally) Add(m episode.Manifest) {
	if t.all == nil {
		t.all, t.robots, t.days = map[tallyKey]*Rate{}, map[tallyKey]*Rate{}, map[tallyKey]*Rate{}
	}
	day := m.Start.UTC().Format("2006-01-02")
	for _, v := range m.Verdicts {
		count(t.all, tallyKey{v.Check, ""}, v.Sat)
		count(t.robots, tallyKey{v.Check, m.Robot}, v.Sat)
		count(t.days, tallyKey{v.Check, day}, v.Sat)
	}
}

// Summary is the pass rates of what was added.
func (t *Tally) Summary() Summary {
	return Summary{Checks: rates(t.all), Robots: rates(t.robots), Days: rates(t.days)}
}

func count(m map[tallyKey]*Rate, k tallyKey, sat bool) {
	r := m[k]
	if r == nil {
		r = &Rate{Check: k.check, Group: k.group}
		m[k] = r
	}
	r.Episodes++
	if sat {
		r.Sat++
	}
}

func rates[K comparable](m map[K]*Rate) []Rate {
	out := make([]Rate, 0, len(m))
	for _, r := range m {
		x := *r
		x.PassRate = float64(r.Sat) / float64(r.Episodes)
		out = append(out, x)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Check != out[j].Check {
			return out[i].Check < out[j].Check
		}
		return out[i].Group < out[j].Group
	})
	return out
}
