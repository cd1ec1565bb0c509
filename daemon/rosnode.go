package daemon

import (
	"github.com/edged-robotics/edged/pipeline"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/rosout"
)

func (d *Daemon) rosConfig() ros.Config {
	c := pipeline.ROSNodeConfig(&d.cfg, d.opts.ROSArgs)
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
