package config

// Discovery is how edged fills a camera or joint role the config leaves
// empty: from the topics the graph publishes (a ROS1 master's, a ROS 2
// domain's DCPSPublication), which any peer on the graph decides. An
// empty role is the opt-in, as it always was (`cameras: []`, or no
// cameras key: every camera on the graph); `enabled: false` keeps empty
// roles empty. Discovered topics are capped: each camera costs a
// subscription (a thread under ROS 2), ros.queue_bytes and ring.max_bytes,
// and a restart of capture when the set changes, so a peer publishing a
// thousand camera topics gets max_cameras of them at most, the rest
// refused, logged and counted (edged_discovery_refused_total). Topics
// already captured keep their place: a newcomer cannot push them out.
type Discovery struct {
	// Enabled fills the camera and joint roles left empty from the
	// graph. Default true; false: a role left empty stays empty.
	Enabled bool `yaml:"enabled"`
	// MaxCameras caps the discovered camera topics. Default 4, 1..64.
	MaxCameras int `yaml:"max_cameras"`
	// MaxJoints caps the discovered JointState topics. Default 4, 1..64.
	MaxJoints int `yaml:"max_joints"`
}

// Discovery's defaults and bound.
const (
	DefaultMaxDiscoveredCameras = 4
	DefaultMaxDiscoveredJoints  = 4
	MaxDiscovered               = 64
)

func defaultDiscovery() Discovery {
	return Discovery{Enabled: true, MaxCameras: DefaultMaxDiscoveredCameras, MaxJoints: DefaultMaxDiscoveredJoints}
}

// validate holds discovery's rules (schema only: no I/O).
func (d Discovery) validate(p *problems) {
	for _, f := range []struct {
		field string
		v     int
	}{{"discovery.max_cameras", d.MaxCameras}, {"discovery.max_joints", d.MaxJoints}} {
		if f.v < 1 || f.v > MaxDiscovered {
			p.add(f.field, "must be in 1..%d, got %d", MaxDiscovered, f.v)
		}
	}
}
