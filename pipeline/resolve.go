package pipeline

import (
	"slices"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/ros"
)

// ROSNodeConfig maps the config's ros section and the command line's
// ROS arguments (which win, as in roscpp) to the node's config.
func ROSNodeConfig(cfg *config.Config, args ros.Args) ros.Config {
	return args.Apply(ros.Config{MasterURI: cfg.ROS.MasterURI, NodeName: cfg.ROS.NodeName, Host: cfg.ROS.Host})
}

// ResolveTopics returns a copy of cfg whose topic names are global, as
// the node resolves them ($ROS_NAMESPACE, __ns:=, ~private under the
// node's name), so the capture, the fsm and the store all see one name
// per topic, live and in replay. Remappings are the node's to apply.
func ResolveTopics(cfg *config.Config, args ros.Args) (config.Config, error) {
	c := *cfg
	c.Cameras, c.Joints, c.FSM = slices.Clone(cfg.Cameras), slices.Clone(cfg.Joints), slices.Clone(cfg.FSM)
	r, err := ros.NewResolver(ROSNodeConfig(cfg, args))
	if err != nil {
		return c, err
	}
	err = c.ResolveTopics(r.Resolve)
	return c, err
}
