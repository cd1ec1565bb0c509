package daemon

import (
	"slices"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/rosout"
)

// rosNodeConfig maps the config's ros section and the command line's
// ROS arguments (which win, as in roscpp) to the node's config.
func rosNodeConfig(cfg *config.Config, args ros.Args) ros.Config {
	return args.Apply(ros.Config{MasterURI: cfg.ROS.MasterURI, NodeName: cfg.ROS.NodeName, Host: cfg.ROS.Host})
}

// resolveTopics returns a copy of cfg whose topic names are global, as
// the node resolves them ($ROS_NAMESPACE, __ns:=, ~private under the
// node's name), so the capture, the fsm and the store all see one name
// per topic, live and in replay. Remappings are the node's to apply.
func resolveTopics(cfg *config.Config, args ros.Args) (config.Config, error) {
	c := *cfg
	c.Cameras, c.Joints, c.FSM = slices.Clone(cfg.Cameras), slices.Clone(cfg.Joints), slices.Clone(cfg.FSM)
	r, err := ros.NewResolver(rosNodeConfig(cfg, args))
	if err != nil {
		return c, err
	}
	err = c.ResolveTopics(r.Resolve)
	return c, err
}

func (d *Daemon) rosConfig() ros.Config {
	c := rosNodeConfig(&d.cfg, d.opts.ROSArgs)
	c.Logger = d.log
	return c
}

// serveLogLevel lets rqt_logger_level and rosservice read and set the
// log level (when Run was given one).
func (d *Daemon) serveLogLevel() {
	if d.opts.LogLevel == nil {
		return
	}
	if err := d.node.ServeLogLevel(d.opts.LogLevel); err != nil {
		d.log.Warn("daemon: cannot serve the log level to rosconsole tools", "err", err)
	}
}

// publishLog advertises /rosout and sends the log there too (when Run
// was given a rosout handler). The returned func detaches the handler
// before the node closes.
func (d *Daemon) publishLog() (detach func()) {
	h := d.opts.Rosout
	if h == nil {
		return func() {}
	}
	pub, err := d.node.Advertise(ros.PublishOptions{Topic: rosout.Topic, Type: rosout.Type, MD5Sum: rosout.MD5Sum,
		Definition: rosout.Definition, QueueSize: 100}) // x MaxMessage x 16 subscribers: <= 26 MB if all stall
	if err != nil {
		d.log.Warn("daemon: cannot publish the log on /rosout; it goes to the terminal only", "err", err)
		return func() {}
	}
	h.Attach(pub, d.node.Name(), []string{pub.Topic()}, nil)
	return h.Detach
}
