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
	c := Config{NodeName: "edged"}.withDefaults()
	if c.MasterURI != "http://master:11311/" || c.Host != "10.0.0.5" || c.ListenAddr != ":0" {
		t.Fatalf("got %+v", c)
	}
	if got := resolveName(c.Namespace, c.NodeName); got != "/arm/edged" {
		t.Fatalf("node name %q", got)
	}
	t.Setenv("ROS_IP", "")
	if c := (Config{}).withDefaults(); c.Host != "robot" {
		t.Fatalf("host %q", c.Host)
	}
	t.Setenv("ROS_IP", "127.0.0.1")
	if c := (Config{}).withDefaults(); c.ListenAddr != "127.0.0.1:0" {
		t.Fatalf("loopback host listens on %q", c.ListenAddr)
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
		{"bad namespace", Config{Namespace: "ns"}, "ros.namespace"},
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
	n := &Node{name: "/ns/edged", cfg: Config{Namespace: "/ns"}}
	for in, want := range map[string]string{"/a/b": "/a/b", "cam": "/ns/cam", "~priv": "/ns/edged/priv"} {
		if got := n.ResolveTopic(in); got != want {
			t.Errorf("ResolveTopic(%q) = %q, want %q", in, got, want)
		}
	}
}
