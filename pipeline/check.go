package pipeline

import (
	"errors"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/internal/fielderr"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// Check is everything a config must pass before edged run (or replay)
// starts with it: config.Validate (no I/O), config.CheckFiles (the files
// it names exist and are readable), then the rules of each component
// the pipeline and the daemon build from it, applied to the very configs they build (the
// ROS node's names, the ROS 2 definitions of ros2.msg_dirs parsed as run
// loads them, the fsm sources, the ring, the uplink with its TLS
// files loaded as a connect would, the trace checks' rules). `edged config check` and New both
// call it, so the check cannot accept a config that run then refuses.
// What only the running machine can tell (a busy http.listen port, an
// unwritable data_dir, a broker that does not answer) is left to Run.
func Check(cfg *config.Config) error {
	return CheckWithArgs(cfg, ros.Args{})
}

// CheckWithArgs is Check for a command line that also carries ROS
// arguments (__name:=, remappings): the node's config is checked as
// run will build it.
func CheckWithArgs(cfg *config.Config, args ros.Args) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := cfg.CheckFiles(); err != nil {
		return err
	}
	if err := checkROS(cfg, args); err != nil {
		return err
	}
	if _, err := ros2Types(cfg); err != nil {
		return err
	}
	// episode.max_duration cuts sessions too, without an fsm stage
	if err := fsm.CheckMaxDuration(cfg.Episode.MaxDuration.D()); err != nil {
		return err
	}
	fc := fsmConfig(cfg)
	if fc.Wanted() { // as StartFSM decides
		if err := fc.Validate(); err != nil {
			return err
		}
	}
	if err := checkTopics(cfg, args); err != nil {
		return err
	}
	if err := ringConfig(cfg).Validate(); err != nil {
		return err
	}
	ucfg, err := uplinkConfig(cfg, "")
	if err != nil {
		return err
	}
	if err := ucfg.Validate(); err != nil {
		return err
	}
	if ucfg.Broker != "" {
		if _, err := ucfg.Auth.TLSConfig(); err != nil {
			return err
		}
	}
	_, err = RulesOf(cfg)
	return err
}

// checkTopics applies capture's topic rules (global names, one role
// per topic) to the configured topics as run resolves and subscribes
// them, and refuses two cameras sharing a directory (checkCameraDirs);
// discovered topics fill only roles the config leaves empty.
func checkTopics(cfg *config.Config, args ros.Args) error {
	resolved, err := ResolveTopics(cfg, args)
	if err != nil {
		return err
	}
	var fc *fsm.Config
	if c := fsmConfig(&resolved); c.Wanted() {
		fc = &c
	}
	cams, joints := ConfiguredTopics(&resolved)
	// no topics is no problem: run discovers them
	if err := withoutNoTopics(captureConfig(&resolved, cams, joints, fc).Validate()); err != nil {
		return err
	}
	return checkCameraDirs(resolved.Cameras)
}

// withoutNoTopics is capture's Validate error without its ErrNoTopics,
// or nil when that was all.
func withoutNoTopics(err error) error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return err
	}
	var rest []error
	for _, e := range j.Unwrap() {
		if !errors.Is(e, capture.ErrNoTopics) {
			rest = append(rest, e)
		}
	}
	return errors.Join(rest...)
}

// checkROS validates the node's config as edged run builds it, with the
// master's URI and the namespace as the environment will give them
// left at values that pass (they are resolved at start).
func checkROS(cfg *config.Config, args ros.Args) error {
	c := ROSNodeConfig(cfg, args)
	if c.MasterURI == "" { // resolved from $ROS_MASTER_URI at start
		c.MasterURI = ros.DefaultMasterURI
	}
	if c.NodeName == "" {
		c.NodeName = ros.DefaultNodeName
	}
	if err := c.Validate(); err != nil {
		return err
	}
	_, err := ROS2QoS(cfg)
	return err
}

// ros2Types loads the ROS 2 definitions edged run and replay decode
// with: the bundled ones plus ros2.msg_dirs (cdr.Load, the loader
// `edged echo --msg-dir` uses too). An error names the field.
func ros2Types(cfg *config.Config) (*cdr.Registry, error) {
	reg, err := cdr.Load(cfg.ROS2.MsgDirs...)
	if err != nil {
		return nil, fielderr.New("ros2.msg_dirs", "%v", err)
	}
	return reg, nil
}
