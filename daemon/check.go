package daemon

import (
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/pipeline"
	"github.com/edged-robotics/edged/ros"
)

// Check is everything a config must pass before edged run starts with
// it: pipeline.Check, which New applies too, so `edged config check`
// cannot accept a config that run then refuses.
func Check(cfg *config.Config) error { return pipeline.Check(cfg) }

// CheckWithArgs is Check for a command line that also carries ROS
// arguments (__name:=, remappings): pipeline.CheckWithArgs.
func CheckWithArgs(cfg *config.Config, args ros.Args) error { return pipeline.CheckWithArgs(cfg, args) }
