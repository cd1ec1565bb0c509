package daemon

import (
	"fmt"
	"sort"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/tracecheck"
)

// rulesOf builds the trace checks of the config's checks section: the
// rules file's, then the inline ones (nil when there are none). Errors
// name the field: checks.rules: checks[2].formula: 1:17: expected ')'.
func rulesOf(cfg *config.Config) (*tracecheck.Rules, error) {
	out := &tracecheck.Rules{Map: map[string]string{}}
	if cfg.Checks.File != "" {
		r, err := tracecheck.LoadRules(cfg.Checks.File)
		if err != nil {
			return nil, fmt.Errorf("checks.file: %w", err)
		}
		merge(out, r)
	}
	if n := &cfg.Checks.Rules; !n.IsZero() {
		b, err := yaml.Marshal(n)
		if err != nil {
			return nil, fmt.Errorf("checks.rules: %w", err)
		}
		r, err := tracecheck.ParseRules(b)
		if err != nil {
			return nil, fmt.Errorf("checks.rules: %w (docs/rtl.md describes the format)", err)
		}
		merge(out, r)
	}
	if len(out.Checks) == 0 {
		return nil, nil
	}
	if err := out.Validate(); err != nil { // names unique across file and inline
		return nil, fmt.Errorf("checks (file's, then inline): %w", err)
	}
	return out, nil
}

func merge(dst, src *tracecheck.Rules) {
	dst.Checks = append(dst.Checks, src.Checks...)
	for k, v := range src.Map {
		dst.Map[k] = v
	}
}

// checkStats counts violations (UNSAT verdicts) per check for /metrics;
// every configured check has a series from the start.
type checkStats struct {
	mu         sync.Mutex
	violations map[string]uint64
}

func (s *checkStats) init(r *tracecheck.Rules) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.violations = map[string]uint64{}
	if r != nil {
		for _, c := range r.Checks {
			s.violations[c.Name] = 0
		}
	}
}

func (s *checkStats) add(vs []episode.Verdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vs {
		if !v.Sat {
			s.violations[v.Check]++
		}
	}
}

type checkCount struct {
	check string
	n     uint64
}

func (s *checkStats) snapshot() []checkCount {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]checkCount, 0, len(s.violations))
	for k, v := range s.violations {
		out = append(out, checkCount{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].check < out[j].check })
	return out
}

// judge evaluates the trace checks over the closed episode m and records
// the verdicts in its manifest, which it returns with them (so that they
// are shipped with the end). A failure to read or write is logged: the
// episode ships without verdicts rather than not at all.
func (d *Daemon) judge(storeDir string, m episode.Manifest) episode.Manifest {
	if d.rules == nil || d.store == nil {
		return m
	}
	e, err := episode.Load(storeDir, m.ID)
	if err != nil {
		d.log.Warn("daemon: trace checks not evaluated (episode unreadable)", "episode", m.ID, "err", err)
		return m
	}
	v := tracecheck.Verdicts(d.rules.Evaluate(e))
	d.checks.add(v)
	if err := d.store.SetVerdicts(m.ID, v); err != nil {
		d.log.Warn("daemon: verdicts not stored in the manifest (they are shipped)", "episode", m.ID, "err", err)
	}
	m.Verdicts = v
	for _, x := range v {
		if !x.Sat {
			d.log.Info("daemon: trace check violated", "episode", m.ID, "check", x.Check, "witness", x.Witness)
		}
	}
	return m
}
