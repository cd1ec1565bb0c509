package ros

import (
	"strings"
	"testing"
)

func TestConfigDefaults(t *testing.T) {
	t.Setenv("ROS_MASTER_URI", "http://master:11311/")
	t.Setenv("ROS_IP", "10.0.0.5")
	t.Setenv("ROS_HOSTNAME", "robot")
	t.Setenv("ROS_NAMESPACE", "/arm")
	c := Config{}.withDefaults()
	// ROS_HOSTNAME comes before ROS_IP, as in roscpp and rospy.
	if c.MasterURI != "http://master:11311/" || c.Host != "robot" || c.ListenAddr != ":0" {
		t.Fatalf("got %+v", c)
	}
	if nm, err := newNames(c.Namespace, c.NodeName, nil); err != nil || nm.node != "/arm/edged" {
		t.Fatalf("node name %q, %v", nm.node, err)
	}
	t.Setenv("ROS_HOSTNAME", "")
	if c := (Config{}).withDefaults(); c.Host != "10.0.0.5" {
		t.Fatalf("host %q", c.Host)
	}
	t.Setenv("ROS_NAMESPACE", "arm") // relative: made global
	if c := (Config{}).withDefaults(); c.Namespace != "/arm" {
		t.Fatalf("namespace %q", c.Namespace)
	}
	t.Setenv("ROS_IP", "127.0.0.1")
	if c := (Config{}).withDefaults(); c.ListenAddr != "127.0.0.1:0" {
		t.Fatalf("loopback host listens on %q", c.ListenAddr)
	}
	t.Setenv("ROS_MASTER_URI", "")
	if c := (Config{}).withDefaults(); c.MasterURI != DefaultMasterURI || c.Validate() != nil {
		t.Fatalf("without ROS_MASTER_URI: master %q (%v), want %s", c.MasterURI, c.Validate(), DefaultMasterURI)
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"ok", Config{}, ""},
		{"bad uri", Config{MasterURI: "localhost:11311"}, "ros.master_uri"},
		{"bad name", Config{NodeName: "/9lives"}, "ros.node_name"},
		{"empty part", Config{NodeName: "/a//b"}, "ros.node_name"},
		// the node took ~edged as /edged; config refused it: one rule
		{"private name", Config{NodeName: "~edged"}, "ros.node_name: must be a global or relative name"},
		{"https master", Config{MasterURI: "https://master:11311/"}, ""},
		{"bad namespace", Config{Namespace: "/9ns"}, "ros.namespace"},
		{"bad remap", Config{Remaps: map[string]string{"a": "b c"}}, "remapping a:=b c"},
		{"bad host", Config{Host: "a b"}, "ros.host"},
		{"negative", Config{CallTimeout: -1}, "ros.call_timeout"},
		{"backoff", Config{ReconnectMin: 10e9, ReconnectMax: 1e9}, "ros.reconnect_max"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.withDefaults().Validate()
			if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestResolveTopic(t *testing.T) {
	remaps := map[string]string{"cam": "/cameras/front", "~in": "other", "/abs": "~out"}
	nm, err := newNames("/ns", "edged", remaps)
	if err != nil {
		t.Fatal(err)
	}
	n := &Node{names: nm}
	for in, want := range map[string]string{
		"/a/b": "/a/b", "cam": "/cameras/front", "/ns/cam": "/cameras/front", "~priv": "/ns/edged/priv",
		"~in": "/ns/other", "/abs": "/ns/edged/out", "other": "/ns/other", "": "/ns",
	} {
		if got := n.ResolveTopic(in); got != want {
			t.Errorf("ResolveTopic(%q) = %q, want %q", in, got, want)
		}
	}
	root, _ := newNames("", "/edged", nil)
	if got := root.resolve("cam"); got != "/cam" || root.node != "/edged" {
		t.Errorf("root namespace: %q, node %q", got, root.node)
	}
}

func TestSplitArgs(t *testing.T) {
	a, rest, err := SplitArgs([]string{"run", "__name:=cam_edged", "--config", "x.yaml", "__ns:=robot1",
		"__log:=/tmp/l.log", "__ip:=10.1.1.1", "__hostname:=robot1.local", "__master:=http://m:11311",
		"image:=/cam/image", "_rate:=10"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rest, " ") != "run --config x.yaml" {
		t.Errorf("rest %q", rest)
	}
	c := a.Apply(Config{NodeName: "/edged", Host: "cfg-host"})
	if c.NodeName != "cam_edged" || c.Namespace != "robot1" || c.Host != "robot1.local" || c.MasterURI != "http://m:11311" ||
		c.Remaps["image"] != "/cam/image" || c.PrivateParams["rate"] != "10" || a.Log != "/tmp/l.log" {
		t.Errorf("applied %+v", c)
	}
	if c := (Args{IP: "10.1.1.1"}).Apply(Config{}); c.Host != "10.1.1.1" {
		t.Errorf("__ip alone: host %q", c.Host)
	}
	for _, bad := range []string{"__bogus:=1", "__name:=", ":=x", "a:="} {
		if _, _, err := SplitArgs([]string{bad}); err == nil {
			t.Errorf("SplitArgs(%q) accepted", bad)
		}
	}
}

func TestParamValue(t *testing.T) {
	for in, want := range map[string]any{"true": true, "10": 10, "2.5": 2.5, "cam": "cam", "1e400": "1e400"} {
		if got := paramValue(in); got != want {
			t.Errorf("paramValue(%q) = %#v, want %#v", in, got, want)
		}
	}
}

// CheckName: ROS 2's hidden names (an action's _action topics) pass, as
// they do in rcl, roscpp and rospy; a part starting with a digit does
// not (edged refused /nav/_action/status as an fsm topic).
func TestCheckName(t *testing.T) {
	cases := []struct {
		name string
		ok   bool
	}{
		{"/task/state", true},
		{"/navigate/_action/status", true},
		{"_private_ns/topic", true},
		{"~state", true},
		{"/a/b_1", true},
		{"/cam/0", false},
		{"/cam image", false},
		{"/a//b", false},
		{"/a/", false},
		{"/a/b-c", false},
	}
	for _, c := range cases {
		if err := CheckName(c.name); (err == nil) != c.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", c.name, err, c.ok)
		}
	}
}
