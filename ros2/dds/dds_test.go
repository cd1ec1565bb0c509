package dds

import (
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/ros"
)

// testDomain is a domain id of the test's own, so parallel tests and
// other processes on the machine do not meet.
func testDomain() int { return 1 + rand.IntN(200) }

func TestNames(t *testing.T) {
	for _, c := range []struct{ ros, dds string }{
		{"std_msgs/msg/String", "std_msgs::msg::dds_::String_"},
		{"action_msgs/msg/GoalStatusArray", "action_msgs::msg::dds_::GoalStatusArray_"},
		{"sensor_msgs/msg/CompressedImage", "sensor_msgs::msg::dds_::CompressedImage_"},
	} {
		if got, ok := DDSType(c.ros); !ok || got != c.dds {
			t.Errorf("DDSType(%q) = %q, %v", c.ros, got, ok)
		}
		if got, ok := ROSType(c.dds); !ok || got != c.ros {
			t.Errorf("ROSType(%q) = %q, %v", c.dds, got, ok)
		}
	}
	if got, _ := DDSType("std_msgs/String"); got != "std_msgs::msg::dds_::String_" {
		t.Errorf("ROS1 spelling: %q", got)
	}
	for _, bad := range []string{"", "String", "a//b", "a/b/c/d", "a:b/c"} {
		if _, ok := DDSType(bad); ok {
			t.Errorf("DDSType(%q) accepted", bad)
		}
	}
	for _, bad := range []string{"", "String", "a::msg::String_", "a::msg::dds_::String", "::msg::dds_::X_", "a::msg::dds_::_"} {
		if _, ok := ROSType(bad); ok {
			t.Errorf("ROSType(%q) accepted", bad)
		}
	}
	for _, c := range []struct {
		ros, dds string
		ok       bool
	}{{"/chatter", "rt/chatter", true}, {"/a/b", "rt/a/b", true}} {
		if got := DDSTopic(c.ros); got != c.dds {
			t.Errorf("DDSTopic(%q) = %q", c.ros, got)
		}
		if got, ok := ROSTopic(c.dds); got != c.ros || ok != c.ok {
			t.Errorf("ROSTopic(%q) = %q, %v", c.dds, got, ok)
		}
	}
	for _, bad := range []string{"rq/x", "DCPSParticipant", "rt/", "rtx/a"} {
		if _, ok := ROSTopic(bad); ok {
			t.Errorf("ROSTopic(%q) accepted", bad)
		}
	}
}

func TestQoSResolve(t *testing.T) {
	rel := QoS{Reliability: Reliable, Durability: Volatile}
	latched := QoS{Reliability: Reliable, Durability: TransientLocal}
	be := QoS{Reliability: BestEffort, Durability: Volatile}
	for _, c := range []struct {
		name string
		q    QoS
		pubs []QoS
		want QoS
	}{
		{"no publishers", QoS{}, nil, QoS{BestEffort, Volatile, DefaultDepth}},
		{"reliable", QoS{}, []QoS{rel}, QoS{Reliable, Volatile, DefaultDepth}},
		{"latched", QoS{}, []QoS{latched}, QoS{Reliable, TransientLocal, DefaultDepth}},
		{"mixed", QoS{}, []QoS{latched, be}, QoS{BestEffort, Volatile, DefaultDepth}},
		{"fixed wins", ProfileSensorData, []QoS{latched}, ProfileSensorData},
		{"depth kept", QoS{Depth: 3}, []QoS{rel}, QoS{Reliable, Volatile, 3}},
	} {
		if got := c.q.Resolve(c.pubs); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParseProfile(t *testing.T) {
	for name, want := range map[string]QoS{"": {}, "auto": {}, "default": ProfileDefault, "sensor_data": ProfileSensorData,
		"latched": ProfileLatched, "transient_local": ProfileLatched} {
		if got, err := ParseProfile(name); err != nil || got != want {
			t.Errorf("ParseProfile(%q) = %v, %v", name, got, err)
		}
	}
	if _, err := ParseProfile("fast"); err == nil || !strings.Contains(err.Error(), "sensor_data") {
		t.Errorf("unknown profile: %v", err)
	}
}

func TestValidate(t *testing.T) {
	if err := (Config{DomainID: 233}).Validate(); err == nil || !strings.Contains(err.Error(), "ros2.domain_id") {
		t.Errorf("domain 233: %v", err)
	}
	for _, c := range []struct {
		o    SubscribeOptions
		want string
	}{
		{SubscribeOptions{Topic: "/a", Type: "x"}, "type"},
		{SubscribeOptions{Topic: ""}, "topic"},
		{SubscribeOptions{Topic: "/a", QoS: QoS{Depth: -1}}, "qos.depth"},
		{SubscribeOptions{Topic: "/a", MaxMessageBytes: 1 << 20, QueueBytes: 1 << 10}, "queue bytes"},
		// a service's topic: the graph cannot tell its type nor QoS
		{SubscribeOptions{Topic: "/s", DDSTopic: "rq/sRequest", QoS: QoS{Reliability: Reliable, Durability: Volatile}}, "a type and a QoS"},
		{SubscribeOptions{Topic: "/s", DDSTopic: "rq/sRequest", Type: "std_srvs/srv/Trigger_Request"}, "a type and a QoS"},
	} {
		if err := c.o.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	if err := (SubscribeOptions{Topic: "/a", Type: "std_msgs/msg/String"}).Validate(); err != nil {
		t.Error(err)
	}
	if err := (SubscribeOptions{Topic: "/s", DDSTopic: "rq/sRequest", Type: "std_srvs/srv/Trigger_Request",
		QoS: QoS{Reliability: Reliable, Durability: Volatile}}).Validate(); err != nil {
		t.Error(err)
	}
}

// TestServiceTopics: a service's DDS topics and types as
// rmw_cyclonedds_cpp names them.
func TestServiceTopics(t *testing.T) {
	for _, name := range []string{"/edged/snapshot", "edged/snapshot"} {
		if rq, rr := ServiceTopics(name); rq != "rq/edged/snapshotRequest" || rr != "rr/edged/snapshotReply" {
			t.Errorf("ServiceTopics(%q) = %s, %s", name, rq, rr)
		}
	}
	if got, _ := DDSType("std_srvs/srv/Trigger_Response"); got != "std_srvs::srv::dds_::Trigger_Response_" {
		t.Errorf("DDSType of a service response: %s", got)
	}
}

// TestBuilt: both builds agree on what NewParticipant says.
func TestBuilt(t *testing.T) {
	p, err := NewParticipant(Config{DomainID: testDomain(), CycloneConfig: LoopbackConfig})
	if !Built {
		if !errors.Is(err, ErrNotBuilt) || !strings.Contains(err.Error(), "make deps") {
			t.Fatalf("purego: %v", err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	p.Close()
}

func TestTopicsGroups(t *testing.T) {
	got := Topics([]Publication{{Topic: "/b", Type: "x/msg/Y"}, {Topic: "/a", Type: "x/msg/Y"}, {Topic: "/b", Type: "x/msg/Y"}, {DDSTopic: "DCPS"}})
	if len(got) != 2 || got[0].Name != "/a" || got[1].Publishers != 2 || len(got[1].Types) != 1 {
		t.Errorf("%+v", got)
	}
}

// DomainFromEnv reads ROS_DOMAIN_ID as rcl does: unset or empty is 0,
// anything but an id 0..232 an error (it was domain 0, silently).
func TestDomainFromEnv(t *testing.T) {
	cases := []struct {
		env  string
		want int
		err  bool
	}{
		{"", 0, false},
		{"7", 7, false},
		{" 42 ", 42, false},
		{"232", 232, false},
		{"233", 0, true},
		{"-1", 0, true},
		{"robot7", 0, true},
	}
	for _, c := range cases {
		t.Setenv("ROS_DOMAIN_ID", c.env)
		got, err := DomainFromEnv()
		if got != c.want || (err != nil) != c.err {
			t.Errorf("ROS_DOMAIN_ID=%q: %d, %v; want %d, error %v", c.env, got, err, c.want, c.err)
		}
		if err != nil && !strings.Contains(err.Error(), "ROS_DOMAIN_ID") {
			t.Errorf("error %q does not name ROS_DOMAIN_ID", err)
		}
	}
}

// TestSubscribeDefaultsAreROS1s: a ROS 2 subscription's queue and byte
// bounds default to a ROS1 subscription's, which package ros owns and
// config documents (ros.queue_size, ros.max_message).
func TestSubscribeDefaultsAreROS1s(t *testing.T) {
	o := SubscribeOptions{Topic: "/t"}.withDefaults()
	for _, c := range []struct {
		name      string
		got, want int
	}{
		{"queue size", o.QueueSize, ros.DefaultQueueSize},
		{"max message bytes", o.MaxMessageBytes, ros.DefaultMaxMessageBytes},
		{"queue bytes", o.QueueBytes, ros.DefaultQueueBytes(ros.DefaultMaxMessageBytes)},
	} {
		if c.got != c.want {
			t.Errorf("%s: %d, ros's is %d", c.name, c.got, c.want)
		}
	}
	if o := (SubscribeOptions{Topic: "/t", MaxMessageBytes: 1 << 20}).withDefaults(); o.QueueBytes != ros.DefaultQueueBytes(1<<20) {
		t.Errorf("queue bytes for 1 MiB messages: %d, ros's is %d", o.QueueBytes, ros.DefaultQueueBytes(1<<20))
	}
}
