package cliptest

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/edged-robotics/edged/bag/mcap"
	"github.com/edged-robotics/edged/ros/msg"
)

// maxSafeInteger is the largest integer a JavaScript number holds
// exactly: larger 64-bit integers are strings in a Tree, as
// mcapcore.cjs prints JavaScript's BigInts.
const maxSafeInteger = 1<<53 - 1

// Tree is a decoded ROS message as JSON holds it, in the form
// mcapcore.cjs prints Foxglove's deserializers' objects, so the two
// compare after a JSON round trip: a message is an object by field
// name, a ROS1 time or duration {sec, nsec} (a ROS 2 one is the message
// builtin_interfaces/Time, {sec, nanosec}), uint8[] bytes (base64 in
// JSON, as a Uint8Array there), floats as float64 (NaN and infinities
// null), 64-bit integers beyond 2^53 as decimal strings.
func Tree(x any) any {
	switch x := x.(type) {
	case *msg.Value:
		m := make(map[string]any, len(x.Fields))
		for i, f := range x.Def.Fields {
			m[f.Name] = Tree(x.Fields[i])
		}
		return m
	case msg.Time:
		return map[string]any{"sec": x.Sec, "nsec": x.NSec}
	case msg.Duration:
		return map[string]any{"sec": x.Sec, "nsec": x.NSec}
	case float32:
		return jsonFloat(float64(x))
	case float64:
		return jsonFloat(x)
	case int64:
		return jsonInt(x >= -maxSafeInteger && x <= maxSafeInteger, x)
	case uint64:
		return jsonInt(x <= maxSafeInteger, x)
	case []byte, string, bool, []string, []bool:
		return x
	case []*msg.Value:
		return list(x)
	case []msg.Time:
		return list(x)
	case []msg.Duration:
		return list(x)
	case []float32:
		return list(x)
	case []float64:
		return list(x)
	case []int64:
		return list(x)
	case []uint64:
		return list(x)
	}
	return x // the smaller integers and their arrays
}

func list[T any](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = Tree(x)
	}
	return out
}

func jsonFloat(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil
	}
	return f
}

func jsonInt[T int64 | uint64](safe bool, x T) any {
	if safe {
		return x
	}
	return fmt.Sprint(x)
}

// firstTree is a topic's first message as JSON holds it after a round
// trip: Tree of its decoded value, or a JSON channel's message parsed.
func firstTree(t testing.TB, m mcap.Message, v *msg.Value) any {
	t.Helper()
	var x any = json.RawMessage(m.Data)
	if v != nil {
		x = Tree(v)
	}
	b, err := json.Marshal(x)
	var out any
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	if err != nil {
		t.Fatalf("%s message %d as JSON: %v", m.Channel.Topic, m.Sequence, err)
	}
	return out
}
