package replay

import (
	"fmt"
	"path/filepath"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/pipeline"
)

// Flags are what `edged replay`'s command line sets over the config.
type Flags struct {
	Config   string   // --config: the file; "" starts from the defaults
	Out      string   // --out: data_dir
	Broker   string   // --broker: uplink.broker
	FSMTopic string   // --fsm: one FSM source, replacing the config's
	FSMType  string   // --fsm-type
	Idle     []string // --idle: the --fsm source's idle states
}

// Config loads the config (or starts from the defaults: robot_id replay,
// data_dir ./replay-out) and applies the flags, then checks it as New
// will. A replay serves no status page (http.listen off). Errors about
// values the flags set name the flags.
func Config(f Flags) (*config.Config, error) {
	c := config.Default()
	c.RobotID, c.DataDir = "replay", "./replay-out"
	if f.Config != "" {
		loaded, err := config.Load(f.Config)
		if err != nil {
			return nil, err
		}
		c = *loaded
	}
	c.HTTP.Listen = "off"
	if f.Out != "" {
		abs, err := filepath.Abs(f.Out) // a flag's relative path is relative to the working directory
		if err != nil {
			return nil, fmt.Errorf("--out: %w", err)
		}
		c.DataDir = abs
	}
	if f.Broker != "" {
		c.Uplink.Broker = f.Broker
	}
	if f.FSMTopic != "" {
		c.FSM = []config.FSMSource{{Topic: f.FSMTopic, Type: f.FSMType, IdleStates: f.Idle}}
	}
	if err := pipeline.Check(&c); err != nil {
		// Errors about values the flags set name the flags, whichever
		// component's rule refused them (Check applies them all).
		return nil, config.RenameFields(err, f.fields())
	}
	return &c, nil
}

// fields maps the config fields the given flags set to the flags.
func (f Flags) fields() map[string]string {
	m := map[string]string{}
	if f.Out != "" {
		m["data_dir"] = "--out"
	}
	if f.Broker != "" {
		m["uplink.broker"] = "--broker"
	}
	if f.FSMTopic != "" {
		m["fsm[0].topic"], m["fsm[0].type"], m["fsm[0]"] = "--fsm", "--fsm-type", "--fsm"
	}
	return m
}
