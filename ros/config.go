package ros

import (
	"errors"
	"log/slog"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/edged-robotics/edged/internal/fielderr"
	"github.com/edged-robotics/edged/ros/tcpros"
)

// Defaults of a node and its subscriptions, which the config file's ros
// section documents (package config takes them from here).
const (
	// DefaultNodeName is Config.NodeName's default (/edged in the root
	// namespace).
	DefaultNodeName = "edged"
	// DefaultMasterURI is Config.MasterURI's default when
	// $ROS_MASTER_URI is unset: roscore's own.
	DefaultMasterURI = "http://localhost:11311/"
	// DefaultQueueSize is SubscribeOptions.QueueSize's default.
	DefaultQueueSize = 8
	// DefaultMaxMessageBytes is SubscribeOptions.MaxMessageBytes's
	// default: a 4K rgb8 image is 24.9 MB.
	DefaultMaxMessageBytes = tcpros.DefaultMaxFrameBytes
)

// DefaultQueueBytes is SubscribeOptions.QueueBytes's default for a
// subscription whose messages are at most maxMessageBytes: two of the
// largest, so one can be held while the next arrives. ros2/dds's
// subscriptions take the same defaults from here.
func DefaultQueueBytes(maxMessageBytes int) int { return 2 * maxMessageBytes }

// Config configures a Node. The zero value is usable: every field has a
// documented default, applied by NewNode.
type Config struct {
	// MasterURI of the ROS master. Default: $ROS_MASTER_URI, else
	// http://localhost:11311/.
	MasterURI string
	// NodeName is this node's name. A relative name is put in Namespace.
	// Default: edged (so /edged in the root namespace).
	NodeName string
	// Namespace for relative node and topic names; a relative one is made
	// global ("robot1" is "/robot1"). Default: $ROS_NAMESPACE, else /.
	Namespace string
	// Remaps maps topic names to others (from:=to on the command line):
	// both sides are resolved as the node resolves names, and every
	// topic the node subscribes to or publishes is remapped.
	Remaps map[string]string
	// PrivateParams (_key:=value on the command line) are set on the
	// master under the node's name each time it registers, as rospy does;
	// a value that reads as a bool, an integer or a float is sent as one.
	PrivateParams map[string]string
	// Host is the name or address other nodes use to reach this one (it
	// goes into the slave API and TCPROS URIs). Default, in ROS's order:
	// $ROS_HOSTNAME, else $ROS_IP, else the machine's hostname.
	Host string
	// ListenAddr is where the slave API listens. Default: 127.0.0.1:0
	// when Host is a loopback name or address, else :0 (all interfaces,
	// a free port).
	ListenAddr string
	// CallTimeout bounds each XML-RPC call and TCPROS handshake.
	// Default 5s.
	CallTimeout time.Duration
	// MasterPollInterval is how often the master is checked (getPid) to
	// notice it going down or restarting. Default 1s.
	MasterPollInterval time.Duration
	// ResolveInterval is how often every subscription is registered again
	// to re-resolve its publishers, in case a publisherUpdate was lost.
	// Default 10s.
	ResolveInterval time.Duration
	// ReconnectMin and ReconnectMax bound the exponential backoff between
	// attempts to reach a lost publisher. Defaults 100ms and 5s.
	ReconnectMin, ReconnectMax time.Duration
	// UnreachableMax is the backoff cap for a publisher that has never
	// answered (a dead node the master still lists, a fake URI): it is
	// tried less and less often, up to this interval. Default 60s.
	UnreachableMax time.Duration
	// FrameTimeout and MinFrameRate bound how long reading one frame body
	// may take once its length is read: FrameTimeout plus the body's size
	// at MinFrameRate bytes per second (64 MiB: 74s). A publisher that
	// announces a frame and stalls is disconnected then, and frees what
	// it pinned; one that is idle between frames is never cut off.
	// Defaults 10s and 1 MiB/s.
	FrameTimeout time.Duration
	MinFrameRate int
	// MaxHeaderBytes caps a publisher's connection header. Default 1 MiB.
	MaxHeaderBytes int
	// Logger receives connection events. Default slog.Default().
	Logger *slog.Logger
}

// withDefaults returns c with every unset field at its default. It reads
// the ROS environment variables and the hostname.
func (c Config) withDefaults() Config {
	if c.MasterURI == "" {
		c.MasterURI = os.Getenv("ROS_MASTER_URI")
	}
	if c.MasterURI == "" {
		c.MasterURI = DefaultMasterURI
	}
	if c.Namespace == "" {
		c.Namespace = os.Getenv("ROS_NAMESPACE")
	}
	c.Namespace = globalNamespace(c.Namespace)
	if c.NodeName == "" {
		c.NodeName = DefaultNodeName
	}
	if c.Host == "" {
		c.Host = os.Getenv("ROS_HOSTNAME")
	}
	if c.Host == "" {
		c.Host = os.Getenv("ROS_IP")
	}
	if c.Host == "" {
		c.Host, _ = os.Hostname()
	}
	if c.Host == "" {
		c.Host = "localhost"
	}
	if c.ListenAddr == "" {
		c.ListenAddr = ":0"
		if isLoopback(c.Host) {
			c.ListenAddr = "127.0.0.1:0"
		}
	}
	setDuration(&c.CallTimeout, 5*time.Second)
	setDuration(&c.MasterPollInterval, time.Second)
	setDuration(&c.ResolveInterval, 10*time.Second)
	setDuration(&c.ReconnectMin, 100*time.Millisecond)
	setDuration(&c.ReconnectMax, 5*time.Second)
	setDuration(&c.UnreachableMax, time.Minute)
	setDuration(&c.FrameTimeout, 10*time.Second)
	if c.MinFrameRate == 0 {
		c.MinFrameRate = 1 << 20
	}
	if c.MaxHeaderBytes == 0 {
		c.MaxHeaderBytes = 1 << 20
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

func setDuration(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Validate checks c (after defaults) without I/O; errors are
// *fielderr.Error values naming the config key. The rules of ros.master_uri (http or https) and ros.node_name
// are the node's alone: config does not repeat them, daemon.Check
// applies these to the node config run builds.
func (c Config) Validate() error {
	var errs []error
	u, err := url.Parse(c.MasterURI)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fielderr.New("ros.master_uri", "%q is not an http://host:port/ URI", c.MasterURI))
	}
	if ns := globalNamespace(c.Namespace); ns != "/" {
		if err := checkName(strings.TrimSuffix(ns, "/")); err != nil {
			errs = append(errs, fielderr.New("ros.namespace", "%w", err))
		}
	}
	if strings.HasPrefix(c.NodeName, "~") {
		// a private name would put the node under itself
		errs = append(errs, fielderr.New("ros.node_name", "must be a global or relative name, got the private name %q", c.NodeName))
	} else if _, err := newNames(c.Namespace, c.NodeName, c.Remaps); err != nil {
		errs = append(errs, err)
	}
	if strings.ContainsAny(c.Host, "/ ") {
		errs = append(errs, fielderr.New("ros.host", "%q is not a host name or address", c.Host))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{{"call_timeout", c.CallTimeout}, {"master_poll_interval", c.MasterPollInterval},
		{"resolve_interval", c.ResolveInterval}, {"reconnect_min", c.ReconnectMin}, {"reconnect_max", c.ReconnectMax},
		{"unreachable_max", c.UnreachableMax}, {"frame_timeout", c.FrameTimeout}} {
		if d.v < 0 {
			errs = append(errs, fielderr.New("ros."+d.name, "must be > 0"))
		}
	}
	if c.ReconnectMax < c.ReconnectMin {
		errs = append(errs, fielderr.New("ros.reconnect_max", "must be >= ros.reconnect_min"))
	}
	if c.UnreachableMax < c.ReconnectMax {
		errs = append(errs, fielderr.New("ros.unreachable_max", "must be >= ros.reconnect_max"))
	}
	if c.MinFrameRate < 0 {
		errs = append(errs, fielderr.New("ros.min_frame_rate", "must be > 0"))
	}
	if c.MaxHeaderBytes < 0 {
		errs = append(errs, fielderr.New("ros.max_header_bytes", "must be > 0"))
	}
	return errors.Join(errs...)
}
