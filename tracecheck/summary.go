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
	type key struct{ check, group string }
	all, robots, days := map[key]*Rate{}, map[key]*Rate{}, map[key]*Rate{}
	add := func(m map[key]*Rate, k key, sat bool) {
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
	for _, m := range ms {
		day := m.Start.UTC().Format("2006-01-02")
		for _, v := range m.Verdicts {
			add(all, key{v.Check, ""}, v.Sat)
			add(robots, key{v.Check, m.Robot}, v.Sat)
			add(days, key{v.Check, day}, v.Sat)
		}
	}
	return Summary{Checks: rates(all), Robots: rates(robots), Days: rates(days)}
}

func rates[K comparable](m map[K]*Rate) []Rate {
	out := make([]Rate, 0, len(m))
	for _, r := range m {
		r.PassRate = float64(r.Sat) / float64(r.Episodes)
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Check != out[j].Check {
			return out[i].Check < out[j].Check
		}
		return out[i].Group < out[j].Group
	})
	return out
}
