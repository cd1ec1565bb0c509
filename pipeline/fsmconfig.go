package pipeline

import (
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/fsm"
)

// fsmConfig maps the file's fsm and episode sections onto the fsm
// stage's Config (config's doc: the pipeline maps the sections; fsm does
// not import config).
func fsmConfig(c *config.Config) fsm.Config {
	out := fsm.Config{Robot: c.RobotID, RecordingTopic: c.Episode.RecordingTopic, Instruction: c.Episode.Instruction,
		InstructionTopic: c.Episode.InstructionTopic, MaxDuration: time.Duration(c.Episode.MaxDuration)}
	for _, s := range c.FSM {
		out.Sources = append(out.Sources, fsm.Source{Topic: s.Topic, Kind: s.Type, Field: s.Field,
			IdleStates: append([]string(nil), s.IdleStates...)})
	}
	return out
}
