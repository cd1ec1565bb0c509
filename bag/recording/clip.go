package recording

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/edged-robotics/edged/bag"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/fsm/fsmkind"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
)

// maxClipTransitions bounds the transitions read from one clip (a clip
// stage keeps 4096 at most; more is a file that is not one of its).
const maxClipTransitions = 1 << 16

// clipRecording is an edged incident clip (package clip): its cameras
// and joints are ROS1 messages, replayed as they are; its FSM is not
// the FSM's own messages but edged's transitions (JSON on
// episode.ClipTopicTransitions). For each std_msgs/String FSM source
// they name, the clip gives the messages that source published: the
// state it was in at the window's start (the first transition's From)
// at the clip's first camera or joint message, then each state entered
// at its transition's stamp. Other sources (smach, actionlib) are not
// rebuilt. The JSON channels themselves are listed as they are, of
// types no role takes (capture and discovery leave them alone).
type clipRecording struct {
	Recording
	fsm      []*bag.Connection // one per string source
	msgs     []bag.Message     // the sources' messages, in time order
	start    time.Time         // the first camera or joint message's
	problems []string
}

// isClip reports whether rec has a clip's transitions channel.
func isClip(rec Recording) bool {
	return slices.ContainsFunc(rec.Connections(), func(c *bag.Connection) bool {
		return c.Topic == episode.ClipTopicTransitions
	})
}

// openClip reads the clip's transitions and builds its FSM's messages.
// A transition that does not decode is a problem (Info.Problems), not
// an error: the frames and joints replay all the same.
func openClip(rec Recording) (*clipRecording, error) {
	c := &clipRecording{Recording: rec}
	trans, err := c.readTransitions()
	if err != nil {
		return nil, err
	}
	start, err := c.firstSensorTime()
	if err != nil {
		return nil, err
	}
	c.start = start
	bySource := map[string]*bag.Connection{}
	for _, tr := range trans {
		if tr.Kind != episode.TransitionState || tr.SrcTyp != fsmkind.String || tr.Source == "" || tr.To == "" {
			continue
		}
		conn := bySource[tr.Source]
		if conn == nil {
			conn = c.stringConnection(tr.Source)
			bySource[tr.Source] = conn
			if tr.From != "" && !start.IsZero() && start.Before(tr.Stamp) {
				c.add(conn, start, tr.From)
			}
		}
		c.add(conn, tr.Stamp, tr.To)
	}
	slices.SortStableFunc(c.msgs, func(a, b bag.Message) int { return a.Time.Compare(b.Time) })
	return c, nil
}

// readTransitions decodes the clip's transitions, at most
// maxClipTransitions.
func (c *clipRecording) readTransitions() ([]episode.Transition, error) {
	it := c.Recording.Messages(episode.ClipTopicTransitions)
	defer it.Close()
	var out []episode.Transition
	for it.Next() {
		if len(out) == maxClipTransitions {
			return nil, fmt.Errorf("bag %s: more than %d messages on %s: not an edged clip",
				c.Info().Path, maxClipTransitions, episode.ClipTopicTransitions)
		}
		var tr episode.Transition
		if err := json.Unmarshal(it.Message().Data, &tr); err != nil {
			c.problems = append(c.problems, fmt.Sprintf("%s at %s: %v; the FSM is rebuilt without it",
				episode.ClipTopicTransitions, it.Message().Time.UTC().Format(time.RFC3339Nano), err))
			continue
		}
		out = append(out, tr)
	}
	return out, it.Err()
}

// firstSensorTime is the time of the clip's first ROS1 message (a
// camera's or joints'): the window's start as replayed. The segments
// channel starts earlier (an episode's segments so far).
func (c *clipRecording) firstSensorTime() (time.Time, error) {
	var topics []string
	for _, conn := range c.Recording.Connections() {
		if conn.Publisher != nil && conn.Publisher.Encoding == ros.EncodingROS1 {
			topics = append(topics, conn.Topic)
		}
	}
	if len(topics) == 0 {
		return time.Time{}, nil
	}
	it := c.Recording.Messages(topics...)
	defer it.Close()
	if it.Next() {
		return it.Message().Time, nil
	}
	return time.Time{}, it.Err()
}

func (c *clipRecording) stringConnection(topic string) *bag.Connection {
	const def = "string data\n"
	pub := &ros.PublisherInfo{Type: msg.TypeString, MD5Sum: msg.MD5String, MessageDefinition: def, Encoding: ros.EncodingROS1}
	conn := &bag.Connection{ID: uint32(len(c.Recording.Connections()) + len(c.fsm)), Topic: topic, Type: msg.TypeString,
		MD5Sum: msg.MD5String, MessageDefinition: def, Publisher: pub}
	c.fsm = append(c.fsm, conn)
	return conn
}

func (c *clipRecording) add(conn *bag.Connection, t time.Time, state string) {
	c.msgs = append(c.msgs, bag.Message{Conn: conn, Time: t, Data: msg.AppendString(nil, state)})
}

// Connections lists the clip's channels and its rebuilt FSM sources.
func (c *clipRecording) Connections() []*bag.Connection {
	return append(slices.Clip(c.Recording.Connections()), c.fsm...)
}

// Info adds what could not be read of the clip's transitions; the
// clip starts at its window (its segments channel reaches before).
func (c *clipRecording) Info() bag.Info {
	info := c.Recording.Info()
	if info.Start.Before(c.start) {
		info.Start = c.start
	}
	info.Problems = append(slices.Clip(info.Problems), c.problems...)
	return info
}

// ROSVersion: a clip's messages are ROS1's.
func (c *clipRecording) ROSVersion() int { return 1 }

// Messages merges the clip's messages of topics (all when none) with
// its rebuilt FSM messages of those topics.
func (c *clipRecording) Messages(topics ...string) bag.Stream {
	var own, fsm []string
	for _, t := range topics {
		if slices.ContainsFunc(c.fsm, func(conn *bag.Connection) bool { return conn.Topic == t }) {
			fsm = append(fsm, t)
		} else {
			own = append(own, t)
		}
	}
	var synth []bag.Message
	for _, m := range c.msgs {
		if len(topics) == 0 || slices.Contains(fsm, m.Conn.Topic) {
			synth = append(synth, m)
		}
	}
	inputs := []bag.Input{{Open: func() (bag.Stream, error) { return &sliceStream{msgs: synth}, nil }}}
	if len(topics) == 0 || len(own) > 0 {
		inputs = append(inputs, bag.Input{Open: func() (bag.Stream, error) { return c.Recording.Messages(own...), nil }})
	}
	return bag.Merge(inputs, bag.MergeOptions{})
}

// sliceStream is a bag.Stream over messages held in memory.
type sliceStream struct {
	msgs []bag.Message
	i    int
}

func (s *sliceStream) Next() bool           { s.i++; return s.i <= len(s.msgs) }
func (s *sliceStream) Message() bag.Message { return s.msgs[s.i-1] }
func (s *sliceStream) Err() error           { return nil }
func (s *sliceStream) Close()               {}
