package rosbag2

import (
	"bytes"
	"slices"
	"testing"

	"github.com/edged-robotics/edged/bag"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// TestG1MatchesROS1: every message of the G1 MCAP bag, decoded with the
// typed CDR decoders, equals the same message of the ROS1 bag decoded
// with ros/msg's: record time, stamps, frame ids, JPEG bytes, joint
// names and values, strings (a ROS 2 header has no seq).
func TestG1MatchesROS1(t *testing.T) {
	r1, err := bag.Open(sampledata.Path(t, "g1_ep29.bag"))
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()
	r2, err := Open(sampledata.Path(t, "ros2/g1_ep29_mcap"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	n := 0
	// per topic: messages of one time on different topics may come in
	// either order
	for _, topic := range []string{"/cam_high/image_raw/compressed", "/joint_states", "/joint_command", "/task_state"} {
		a, b := r1.Messages(topic), r2.Messages(topic)
		for a.Next() {
			if !b.Next() {
				t.Fatalf("%s: the MCAP bag ends after %d messages: %v", topic, n, b.Err())
			}
			m1, m2 := a.Message(), b.Message()
			if !m1.Time.Equal(m2.Time) {
				t.Fatalf("%s message at %v, MCAP at %v", topic, m1.Time, m2.Time)
			}
			if err := sameMessage(m1, m2); err != "" {
				t.Fatalf("%s message at %v: %s", topic, m1.Time, err)
			}
			n++
		}
		if b.Next() || a.Err() != nil || b.Err() != nil {
			t.Fatalf("%s: more MCAP messages, or errors %v %v", topic, a.Err(), b.Err())
		}
		a.Close()
		b.Close()
	}
	if n != 670 {
		t.Fatalf("%d messages compared, want 670", n)
	}
}

func sameMessage(m1, m2 bag.Message) string {
	switch m1.Conn.Type {
	case msg.TypeCompressedImage:
		var x, y msg.CompressedImage
		if msg.DecodeCompressedImage(m1.Data, &x) != nil || cdr.DecodeCompressedImage(m2.Data, &y) != nil {
			return "does not decode"
		}
		x.Header.Seq = 0
		if x.Header != y.Header || x.Format != y.Format || !bytes.Equal(x.Data, y.Data) {
			return "images differ"
		}
	case msg.TypeJointState:
		var x, y msg.JointState
		if msg.DecodeJointState(m1.Data, &x) != nil || cdr.DecodeJointState(m2.Data, &y) != nil {
			return "does not decode"
		}
		x.Header.Seq = 0
		if x.Header != y.Header || !slices.Equal(x.Name, y.Name) || !slices.Equal(x.Position, y.Position) ||
			!slices.Equal(x.Velocity, y.Velocity) || !slices.Equal(x.Effort, y.Effort) || len(y.Name) != 26 {
			return "joint states differ"
		}
	case msg.TypeString:
		var x, y msg.String
		if msg.DecodeString(m1.Data, &x) != nil || cdr.DecodeString(m2.Data, &y) != nil || x != y {
			return "strings differ"
		}
	default:
		return "unexpected type " + m1.Conn.Type
	}
	return ""
}
