package tracecheck

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"

	"gopkg.in/yaml.v3"

	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/edged-robotics/edged/rtl"
)

// Limits of a rules file.
const (
	MaxRulesBytes = 1 << 20
	MaxChecks     = 256 // their verdicts travel in every manifest
	MaxMapEntries = 4096
	maxNameBytes  = 128
)

// Rules are the checks of a rules file.
type Rules struct {
	Checks []Check `yaml:"checks"`
	// Map gives the RTL element of a recorded state whose name differs
	// (GOTO_OFFICE: goto(office)); states it does not name are read as
	// they stand.
	Map map[string]string `yaml:"map"`
}

// Check is one named check.
type Check struct {
	// Name identifies the check in verdicts, metrics and reports:
	// letters, digits, '_', '-' and '.', unique in the file.
	Name string `yaml:"name"`
	// Formula is the RTL formula (docs/rtl.md).
	Formula string `yaml:"formula"`
	// Instruction scopes the check to episodes whose instruction matches
	// this regular expression (unanchored, case-insensitive). Default
	// "": every episode.
	Instruction string `yaml:"instruction"`
	// FSM scopes the check to the segments of this FSM source (topic).
	// Default "": every source.
	FSM string `yaml:"fsm"`

	formula     *rtl.Formula
	instruction *regexp.Regexp
}

// Parsed is the parsed formula (after ParseRules or Validate).
func (c *Check) Parsed() *rtl.Formula { return c.formula }

var namePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]+$`)

// ParseRules decodes a rules file's bytes (YAML; unknown keys are
// errors) and validates them.
func ParseRules(b []byte) (*Rules, error) {
	if len(b) > MaxRulesBytes {
		return nil, fmt.Errorf("rules: %d bytes is more than %d: split the checks into several files", len(b), MaxRulesBytes)
	}
	var r Rules
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("rules: %w", err)
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return &r, nil
}

// LoadRules reads and parses a rules file.
func LoadRules(path string) (*Rules, error) {
	b, err := fsutil.ReadFileCapped(path, MaxRulesBytes)
	if err != nil {
		return nil, fmt.Errorf("rules: %w", err)
	}
	r, err := ParseRules(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// Validate checks every field (no I/O) and parses the formulas; errors
// name the field: checks[2].formula: 1:17: expected ')'.
func (r *Rules) Validate() error {
	if len(r.Checks) > MaxChecks {
		return fmt.Errorf("checks: %d checks, at most %d", len(r.Checks), MaxChecks)
	}
	if len(r.Map) > MaxMapEntries {
		return fmt.Errorf("map: %d entries, at most %d", len(r.Map), MaxMapEntries)
	}
	seen := map[string]int{}
	for i := range r.Checks {
		c := &r.Checks[i]
		if err := c.validate(); err != nil {
			return fmt.Errorf("checks[%d].%w", i, err)
		}
		if j, dup := seen[c.Name]; dup {
			return fmt.Errorf("checks[%d].name: %q is also checks[%d]'s name: names must be unique", i, c.Name, j)
		}
		seen[c.Name] = i
	}
	for state, el := range r.Map {
		if err := rtl.CheckElement(el); err != nil {
			return fmt.Errorf("map[%q]: %w", state, err)
		}
	}
	return nil
}

func (c *Check) validate() error {
	if c.Name == "" || len(c.Name) > maxNameBytes || !namePattern.MatchString(c.Name) {
		return fmt.Errorf("name: %q: want 1 to %d letters, digits, '_', '-' or '.'", c.Name, maxNameBytes)
	}
	f, err := rtl.Parse(c.Formula)
	if err != nil {
		return fmt.Errorf("formula: %w", err)
	}
	c.formula = f
	c.instruction = nil
	if c.Instruction != "" {
		re, err := regexp.Compile("(?i)" + c.Instruction)
		if err != nil {
			return fmt.Errorf("instruction: not a regular expression: %w", err)
		}
		c.instruction = re
	}
	return nil
}
