package fsm

import (
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/ros/msg"
)

// Sources (several at once, one per topic):
//   - string: a std_msgs/String holding the current state's name; a
//     change is a transition, a repeat is a heartbeat.
//   - smach: smach_msgs/SmachContainerStatus from every container of a
//     SMACH introspection server; the active leaf states, walked from the
//     root container through nested containers, give hierarchical labels
//     relative to the root (PICK/GRASP) and full paths
//     (/SM_ROOT/PICK/GRASP). Concurrent states give parallel segments.
//     local_data (a pickle) is ignored.
//   - actionlib: actionlib_msgs/GoalStatusArray; one segment per goal from
//     ACTIVE to its terminal status (SUCCEEDED -> completed, ABORTED,
//     REJECTED, LOST -> aborted, PREEMPTED, RECALLED -> preempted),
//     labeled with the goal's status text when it says something, else
//     the action's name (the topic without /status, or /_action/status
//     in ROS 2). The goal's fields, read from the action's goal topic
//     (ROS1's /ACTION/goal, subscribed beside the status), become the
//     segment's Args (goal.go), and the Args of the transition that
//     opens it; when the goal arrives after its status opened the
//     segment, a TransitionGoal record carries them, so that the trace
//     of an open episode and a segment recovered after a crash have them.
//   - field: any message type, the state read at a field path
//     (status.phase) from the dynamically decoded *msg.Value.

// active is one state a source is in: the segment it would open.
type active struct {
	label, path, goalID string
	args                []string // actionlib: the goal's fields (goal.go)
}

// update is what one message says about a source.
type update struct {
	active map[string]active // key -> state; the whole set now active
	ended  map[string]string // key -> outcome, for keys that ended with one
	raw    string            // the state as received, for the transition record
}

// source is the state of one FSM topic, owned by the run loop.
type source struct {
	cfg  Source
	idle map[string]bool

	cur      map[string]active // what the source says is active now
	raw      string            // the state as last received
	prev     string            // the state before the last change
	last     time.Time         // the latest stamp of this source
	lastBeat int64             // stamp (ns) of the last record for this source

	containers map[string][]string // smach: container path -> active states
	goals      map[string]*goal    // actionlib
	goalArgs   map[string][]string // actionlib: goal id -> its fields, from the goal topic
	action     string              // actionlib: the action's name
}

type goal struct {
	label  string
	status uint8
}

func newSource(cfg Source) *source {
	s := &source{cfg: cfg, idle: map[string]bool{}, cur: map[string]active{},
		containers: map[string][]string{}, goals: map[string]*goal{}, goalArgs: map[string][]string{}}
	for _, st := range cfg.IdleStates {
		s.idle[st] = true
	}
	s.action = actionName(cfg.Topic)
	return s
}

// actionName is the action a status topic belongs to: ROS1 actionlib's
// /ACTION/status, ROS 2's /ACTION/_action/status.
func actionName(topic string) string {
	a := strings.TrimSuffix(topic, "/status")
	a = strings.TrimSuffix(a, "/_action")
	return strings.TrimPrefix(a, "/")
}

// interpret turns one message of the source into an update.
func (s *source) interpret(v any) (update, error) {
	switch s.cfg.Kind {
	case KindString:
		m, ok := v.(*msg.String)
		if !ok {
			if dv, ok2 := v.(*msg.Value); ok2 {
				return s.fromDynamic(dv, "data")
			}
			return update{}, fmt.Errorf("want std_msgs/String, got %T", v)
		}
		return s.single(m.Data), nil
	case KindField:
		dv, ok := v.(*msg.Value)
		if !ok {
			return update{}, fmt.Errorf("field source wants a dynamically decoded message, got %T", v)
		}
		return s.fromDynamic(dv, s.cfg.Field)
	case KindSmach:
		m, ok := v.(*msg.SmachContainerStatus)
		if !ok {
			return update{}, fmt.Errorf("want smach_msgs/SmachContainerStatus, got %T", v)
		}
		return s.smach(m), nil
	case KindActionlib:
		m, ok := v.(*msg.GoalStatusArray)
		if !ok {
			return update{}, fmt.Errorf("want actionlib_msgs/GoalStatusArray, got %T", v)
		}
		return s.actionlib(m), nil
	}
	return update{}, fmt.Errorf("unknown source kind %q", s.cfg.Kind)
}

// single is the update of a one-state source (string, field).
func (s *source) single(state string) update {
	u := update{active: map[string]active{}, raw: state}
	if state != "" && !s.idle[state] {
		u.active[state] = active{label: state, path: state}
	}
	return u
}

func (s *source) fromDynamic(v *msg.Value, field string) (update, error) {
	x, err := v.Get(field)
	if err != nil {
		return update{}, err
	}
	return s.single(formatState(x)), nil
}

// formatState renders a field value as a state name: strings as they
// are, numbers and booleans in Go syntax, anything else as its JSON.
func formatState(x any) string {
	switch t := x.(type) {
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float32:
		return strconv.FormatFloat(float64(t), 'g', -1, 32)
	case float64:
		return strconv.FormatFloat(t, 'g', -1, 64)
	case int8, uint8, int16, uint16, int32, uint32, int64, uint64:
		return fmt.Sprint(t)
	case *msg.Value:
		b, err := t.MarshalJSON()
		if err != nil {
			return "?"
		}
		return string(b)
	default:
		return fmt.Sprint(t)
	}
}

// smach records one container's active states and recomputes the active
// leaves of the whole tree, labeled relative to their root container.
func (s *source) smach(m *msg.SmachContainerStatus) update {
	p := strings.TrimRight(m.Path, "/")
	if len(s.containers) < maxContainers || s.containers[p] != nil {
		s.containers[p] = append([]string{}, m.ActiveStates...)
	}
	u := update{active: map[string]active{}}
	var roots []string
	for c := range s.containers {
		if _, ok := s.containers[path.Dir(c)]; !ok || path.Dir(c) == c {
			roots = append(roots, c)
		}
	}
	sort.Strings(roots)
	var leaves []string
	for _, r := range roots {
		s.walk(r, r, 0, func(full string) {
			label := strings.TrimPrefix(strings.TrimPrefix(full, r), "/")
			if label == "" || s.idle[label] {
				return
			}
			u.active[full] = active{label: label, path: full}
			leaves = append(leaves, label)
		})
	}
	sort.Strings(leaves)
	u.raw = strings.Join(leaves, ",")
	return u
}

// maxContainers and maxDepth bound what a misbehaving server can make
// edged hold.
const (
	maxContainers = 1024
	maxDepth      = 32
)

func (s *source) walk(root, c string, depth int, leaf func(string)) {
	states := s.containers[c]
	if len(states) == 0 {
		if c != root {
			leaf(c) // a nested container with nothing active yet
		}
		return
	}
	for _, st := range states {
		if st == "" || st == "None" {
			continue
		}
		child := c + "/" + st
		if _, ok := s.containers[child]; ok && depth < maxDepth {
			s.walk(root, child, depth+1, leaf)
		} else {
			leaf(child)
		}
	}
}

// The text SimpleActionServer puts on every accepted goal: not a label.
const acceptedText = "This goal has been accepted by the simple action server"

// actionlib tracks every goal of the array: ACTIVE and PREEMPTING goals
// are active; a terminal status ends the goal with its outcome; a goal
// that was active and vanished from the list is lost (aborted).
func (s *source) actionlib(m *msg.GoalStatusArray) update {
	u := update{active: map[string]active{}, ended: map[string]string{}}
	seen := map[string]bool{}
	var raw []string
	for _, st := range m.StatusList {
		id, _ := clip(st.GoalID.ID, MaxLabelBytes) // the same cut as clipUpdate's, so keys agree
		seen[id] = true
		g := s.goals[id]
		if g == nil {
			if len(s.goals) >= maxGoals {
				continue
			}
			g = &goal{status: 255}
			s.goals[id] = g
		}
		if g.status != st.Status {
			raw = append(raw, id+":"+msg.GoalStatusName(st.Status))
		}
		g.status = st.Status
		switch st.Status {
		case msg.GoalActive, msg.GoalPreempting:
			if g.label == "" {
				g.label = s.action
				if st.Text != "" && st.Text != acceptedText {
					g.label = st.Text
				}
			}
			u.active[id] = active{label: g.label, path: s.action, goalID: id, args: s.goalArgs[id]}
		case msg.GoalSucceeded:
			u.ended[id] = episode.Completed
		case msg.GoalAborted, msg.GoalRejected, msg.GoalLost:
			u.ended[id] = episode.Aborted
		case msg.GoalPreempted, msg.GoalRecalled:
			u.ended[id] = episode.Preempted
		}
	}
	for id := range s.goals {
		if !seen[id] {
			if _, wasActive := s.cur[id]; wasActive {
				u.ended[id] = episode.Aborted
				raw = append(raw, id+":VANISHED")
			}
			delete(s.goals, id)
			delete(s.goalArgs, id)
		}
	}
	sort.Strings(raw)
	u.raw = strings.Join(raw, ",")
	return u
}

const maxGoals = 4096
