package pipeline

import (
	"sort"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/fielderr"
	"github.com/edged-robotics/edged/tracecheck"
)

// rulesOf builds the trace checks of the config's checks section: the
// rules file's, then the inline ones (nil when there are none). Errors
// are *fielderr.Error values naming the field: checks.rules:
// checks[2].formula: 1:17: expected ')'.
func RulesOf(cfg *config.Config) (*tracecheck.Rules, error) {
	out := &tracecheck.Rules{Map: map[string]string{}}
	if cfg.Checks.File != "" {
		r, err := tracecheck.LoadRules(cfg.Checks.File)
		if err != nil {
			return nil, fielderr.New("checks.file", "%w", err)
		}
		merge(out, r)
	}
	if n := &cfg.Checks.Rules; !n.IsZero() {
		b, err := yaml.Marshal(n)
		if err != nil {
			return nil, fielderr.New("checks.rules", "%w", err)
		}
		r, err := tracecheck.ParseRules(b)
		if err != nil {
			return nil, fielderr.New("checks.rules", "%w (docs/rtl.md describes the format)", err)
		}
		merge(out, r)
	}
	if len(out.Checks) == 0 {
		return nil, nil
	}
	if err := out.Validate(); err != nil { // names unique across file and inline
		return nil, fielderr.New("checks", "file's, then inline: %w", err)
	}
	return out, nil
}

func merge(dst, src *tracecheck.Rules) {
	dst.Checks = append(dst.Checks, src.Checks...)
	for k, v := range src.Map {
		dst.Map[k] = v
	}
}

// SetRules makes rules the trace checks of episodes closing from now on
// (a reload).
func (p *Pipeline) SetRules(rules *tracecheck.Rules) {
	p.checks.add(rules)
	p.rules.Store(rules)
	p.log.Info("daemon: trace checks (re)loaded", "checks", names(rules))
}

// names lists the checks of r, comma-separated.
func names(r *tracecheck.Rules) string {
	if r == nil {
		return ""
	}
	n := make([]string, len(r.Checks))
	for i, c := range r.Checks {
		n[i] = c.Name
	}
	return strings.Join(n, ",")
}

// checkStats counts verdicts per check for /metrics (violations) and
// the status page (both); every check configured since the start has a
// series (a check a reload removed keeps its counts: a counter never
// goes back).
type checkStats struct {
	mu     sync.Mutex
	counts map[string]*CheckCount
}

// CheckCount is one check's verdicts since edged started.
type CheckCount struct {
	Check string `json:"check"`
	Sat   uint64 `json:"sat"`
	Unsat uint64 `json:"unsat"` // violations
}

// add gives the checks of r a series each (from 0 when new).
func (s *checkStats) add(r *tracecheck.Rules) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r != nil {
		for _, c := range r.Checks {
			s.of(c.Name)
		}
	}
}

// of is the count of check (created); s.mu held.
func (s *checkStats) of(check string) *CheckCount {
	if s.counts == nil {
		s.counts = map[string]*CheckCount{}
	}
	c := s.counts[check]
	if c == nil {
		c = &CheckCount{Check: check}
		s.counts[check] = c
	}
	return c
}

func (s *checkStats) count(vs []episode.Verdict) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, v := range vs {
		if c := s.of(v.Check); v.Sat {
			c.Sat++
		} else {
			c.Unsat++
		}
	}
}

// snapshot is a copy in check name order.
func (s *checkStats) snapshot() []CheckCount {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]CheckCount, 0, len(s.counts))
	for _, c := range s.counts {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Check < out[j].Check })
	return out
}

// judge evaluates the trace checks over the closed episode m and records
// the verdicts in its manifest, which it returns with them (so that they
// are shipped with the end). A failure to read or write is logged: the
// episode ships without verdicts rather than not at all.
func (p *Pipeline) judge(storeDir string, m episode.Manifest) episode.Manifest {
	rules := p.rules.Load()
	if rules == nil || p.store == nil {
		return m
	}
	e, err := episode.Load(storeDir, m.ID)
	if err != nil {
		p.log.Warn("daemon: trace checks not evaluated (episode unreadable)", "episode", m.ID, "err", err)
		return m
	}
	v := tracecheck.Verdicts(rules.Evaluate(e))
	p.checks.count(v)
	p.status.judged(m, v)
	if err := p.store.SetVerdicts(m.ID, v); err != nil {
		p.log.Warn("daemon: verdicts not stored in the manifest (they are shipped)", "episode", m.ID, "err", err)
	}
	m.Verdicts = v
	for _, x := range v {
		if !x.Sat {
			p.log.Info("daemon: trace check violated", "episode", m.ID, "check", x.Check, "witness", x.Witness)
		}
	}
	return m
}

// Checks are the verdicts per check since the pipeline was made, in
// check name order.
func (p *Pipeline) Checks() []CheckCount { return p.checks.snapshot() }
