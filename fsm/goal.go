package fsm

import (
	"fmt"
	"strings"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/msg"
)

// Goal arguments: an actionlib goal's fields, read from the action's
// goal topic (ROS1: /ACTION/goal, an ACTIONActionGoal with goal_id and
// goal), become the arguments of the goal's segment, so that trace
// checks see pick(cup, table) where the status topic alone says pick.
// ROS 2 actions send goals by service, not on a topic: their segments
// have no arguments.
const (
	maxGoalArgs     = 8  // fields kept per goal, in definition order
	maxGoalArgBytes = 64 // each cut to this (marked with "…")
)

// GoalTopic is the topic an actionlib status topic's goals arrive on
// ("" when there is none: ROS 2's /ACTION/_action/status).
func GoalTopic(statusTopic string) string {
	if strings.HasSuffix(statusTopic, "/_action/status") || !strings.HasSuffix(statusTopic, "/status") {
		return ""
	}
	return strings.TrimSuffix(statusTopic, "/status") + "/goal"
}

// goalArgs reads an ActionGoal: the goal id and the goal's leaf fields
// as text. ok false when v is not such a message.
func goalArgs(v any) (id string, args []string, ok bool) {
	val, isVal := v.(*msg.Value)
	if !isVal {
		return "", nil, false
	}
	gid, err := val.Get("goal_id.id")
	if err != nil {
		return "", nil, false
	}
	id, ok = gid.(string)
	if !ok {
		return "", nil, false
	}
	if g, _ := val.Field("goal"); g != nil {
		if gv, isVal := g.(*msg.Value); isVal {
			args = appendLeaves(args, gv)
		}
	}
	return id, args, true
}

// appendLeaves appends v's scalar fields depth first, as text.
func appendLeaves(args []string, v *msg.Value) []string {
	for _, f := range v.Fields {
		if len(args) == maxGoalArgs {
			return args
		}
		switch x := f.(type) {
		case *msg.Value:
			args = appendLeaves(args, x)
		case []byte, []int8, []*msg.Value, []string, []float64, []float32, []int32, []uint32, []int64, []uint64, []int16, []uint16, []bool:
			// arrays are no argument: a trace element names things
		default:
			s, _ := clip(fmt.Sprint(x), maxGoalArgBytes)
			args = append(args, s)
		}
	}
	return args
}

// goal records the arguments of a goal seen on src's goal topic; an
// open segment of that goal gets them too (the status may come first),
// and a TransitionGoal record says so, so that the trace of the open
// episode and a segment recovered after a crash have them as the closed
// segment will.
func (m *Machine) goal(src *source, stamp time.Time, v any) {
	id, args, ok := goalArgs(v)
	if !ok {
		m.count(func(s *Stats) { s.Bad++ })
		return
	}
	id, _ = clip(id, MaxLabelBytes) // keys agree with actionlib()'s
	if len(src.goalArgs) >= maxGoals {
		return
	}
	src.goalArgs[id] = args
	o, open := m.open[src][id]
	if !open || o.args != nil {
		return
	}
	o.args = args
	m.open[src][id] = o
	if m.w == nil || len(args) == 0 {
		return
	}
	if stamp.Before(o.start) {
		stamp = o.start
	}
	m.storeErr(m.w.Transition(episode.Transition{Stamp: stamp, Sec: stamp.Sub(m.w.Start()).Seconds(),
		Kind: episode.TransitionGoal, Source: src.cfg.Topic, SrcTyp: src.cfg.Kind, Path: o.path, GoalID: o.goalID, Args: args}))
}
