package cliptest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/edged-robotics/edged/internal/mcaptest"
)

// CheckFoxgloveDecodes: Foxglove's deserializers (v, mcaptest's view of
// the clip c was read from) decoded every message of every topic with
// its channel's schema, and the first message of each topic to what
// edged's reader decoded (c.First): ROS1 or ROS 2 camera frames and
// joint states field by field (the camera's header.stamp, format and
// JPEG bytes among them), edged's JSON channels as JSON.
func CheckFoxgloveDecodes(t testing.TB, c Clip, v mcaptest.View) {
	t.Helper()
	for topic, n := range c.PerTopic {
		d, ok := v.Decoded[topic]
		if !ok || d.Count != n || d.Failed != 0 {
			t.Errorf("Foxglove's deserializers: %s: %d of %d messages decoded, %d failed (%s)", topic, d.Count, n, d.Failed, d.Error)
			continue
		}
		var first any
		if err := json.Unmarshal(d.First, &first); err != nil {
			t.Errorf("Foxglove's deserializers: %s: first message %s: %v", topic, clipped(d.First), err)
			continue
		}
		if !reflect.DeepEqual(first, c.First[topic]) {
			t.Errorf("%s: Foxglove's deserializers decoded the first message as\n%s\nedged's reader as\n%s",
				topic, clipped(d.First), clipped(c.First[topic]))
			continue
		}
		t.Logf("Foxglove's deserializers: %s (%s): %d messages decoded, the first: %s", topic, c.Encodings[topic], d.Count,
			clipped(summary(first)))
	}
}

// summary is a decoded message with its byte fields (base64) shortened:
// what a log shows of it.
func summary(x any) any {
	switch x := x.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, v := range x {
			out[k] = summary(v)
		}
		return out
	case string:
		if len(x) > 40 {
			return fmt.Sprintf("%s... (%d chars)", x[:20], len(x))
		}
	}
	return x
}

// clipped is x as JSON, cut to what a test's message shows.
func clipped(x any) string {
	b, ok := x.(json.RawMessage)
	if !ok {
		b, _ = json.Marshal(x)
	}
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}
