package daemon

import (
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/ros"
)

// Check is everything a config must pass before edged run (or replay)
// starts with it: config.Validate (no I/O), config.CheckFiles (the files
// it names exist and are readable), then the rules of each component
// the daemon builds from it, applied to the very configs it builds (the
// ROS node's names, the fsm sources, the ring, the uplink with its TLS
// files loaded as a connect would). `edged config check` and New both
// call it, so the check cannot accept a config that run then refuses.
// What only the running machine can tell (a busy http.listen port, an
// unwritable data_dir, a broker that does not answer) is left to Run.
func Check(cfg *config.Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	if err := cfg.CheckFiles(); err != nil {
		return err
	}
	master := cfg.ROS.MasterURI
	if master == "" { // resolved from $ROS_MASTER_URI at start
		master = "http://localhost:11311/"
	}
	if err := (ros.Config{MasterURI: master, Namespace: "/", NodeName: cfg.ROS.NodeName, Host: cfg.ROS.Host}).Validate(); err != nil {
		return err
	}
	if fc := fsm.FromConfig(cfg); len(fc.Sources) > 0 {
		if err := fc.Validate(); err != nil {
			return err
		}
	}
	if err := (ringbuf.Config{MaxBytes: int(cfg.Ring.MaxBytes), MaxAge: cfg.Ring.MaxAge.D()}).Validate(); err != nil {
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
	return nil
}
