package rosbag2

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
)

const tests = "ros2/rosbag2_tests/"

// decoded is one message of a bag, decoded dynamically.
type decoded struct {
	topic string
	t     int64
	json  string
	value *msg.Value
}

// decodeAll decodes every message of a bag from the definitions it
// carries (or, for types listed in fromRegistry, the bundled ones).
func decodeAll(t *testing.T, path string, fromRegistry ...string) []decoded {
	t.Helper()
	r, err := Open(sampledata.Path(t, path), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if p := r.Info().Problems; len(p) > 0 {
		t.Errorf("problems: %v", p)
	}
	defs := map[*ros.PublisherInfo]*cdr.Definition{}
	for _, c := range r.Connections() {
		if c.Publisher.Encoding != ros.EncodingCDR {
			t.Fatalf("%s: encoding %q", c.Topic, c.Publisher.Encoding)
		}
		text := c.MessageDefinition
		for _, typ := range fromRegistry {
			if typ == c.Type {
				text = ""
			}
		}
		d, err := cdr.Parse(c.Type, text)
		if err != nil && r.topicMessages(c.Topic) > 0 {
			t.Fatalf("%s: %v", c.Topic, err)
		}
		defs[c.Publisher] = d
	}
	var out []decoded
	it := r.Messages()
	defer it.Close()
	for it.Next() {
		m := it.Message()
		v, err := defs[m.Conn.Publisher].Decode(m.Data)
		if err != nil {
			t.Fatalf("%s message at %d: %v", m.Conn.Topic, m.Time.UnixNano(), err)
		}
		out = append(out, decoded{m.Conn.Topic, m.Time.UnixNano(), string(v.AppendJSONBytes(nil)), v})
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if uint64(len(out)) != r.Info().Messages {
		t.Errorf("%d messages decoded, info says %d", len(out), r.Info().Messages)
	}
	return out
}

func (r *Reader) topicMessages(topic string) uint64 {
	for _, ti := range r.Info().Topics {
		if ti.Topic == topic {
			return ti.Messages
		}
	}
	return 0
}

func byTopic(ms []decoded, topic string) []decoded {
	var out []decoded
	for _, m := range ms {
		if m.topic == topic {
			out = append(out, m)
		}
	}
	return out
}

// TestTalker: both storages hold the demo talker's ten strings, and the
// typed decoder agrees with the dynamic one. The .db3 holds placeholder
// definitions (README), so /rosout is decoded with the bundled Log.
func TestTalker(t *testing.T) {
	for _, path := range []string{tests + "mcap_talker", tests + "sqlite3_talker", tests + "mcap_talker/talker.mcap",
		tests + "sqlite3_talker/talker.db3"} {
		t.Run(path, func(t *testing.T) {
			all := decodeAll(t, path, "rcl_interfaces/msg/Log")
			topic := byTopic(all, "/topic")
			if len(topic) != 10 || len(byTopic(all, "/rosout")) != 10 {
				t.Fatalf("%d /topic, %d /rosout messages", len(topic), len(byTopic(all, "/rosout")))
			}
			for i, m := range topic {
				if want := fmt.Sprintf(`{"data":"Hello, world! %d"}`, i); m.json != want {
					t.Errorf("message %d: %s, want %s", i, m.json, want)
				}
			}
			log := byTopic(all, "/rosout")[3].value
			if lv, _ := log.Get("level"); lv != uint8(20) {
				t.Errorf("/rosout level %v, want INFO (20)", lv)
			}
			if s, _ := log.Get("msg"); s != "Publishing: 'Hello, world! 3'" {
				t.Errorf("/rosout msg %q", s)
			}
			if all[0].t != 1585866235112411371 {
				t.Errorf("first log time %d", all[0].t)
			}
		})
	}
}

// TestCDRCases: rosbag2's cdr_test bag (test_msgs BasicTypes and Arrays:
// every primitive, fixed arrays of each, strings, nested messages)
// decodes to the same values from MCAP and sqlite3, with the values the
// test wrote.
func TestCDRCases(t *testing.T) {
	m := decodeAll(t, tests+"mcap_cdr_test")
	s := decodeAll(t, tests+"sqlite3_cdr_test")
	if len(m) != 7 || len(s) != 7 {
		t.Fatalf("%d and %d messages, want 7", len(m), len(s))
	}
	for i := range m {
		if m[i].topic != s[i].topic || m[i].t != s[i].t || m[i].json != s[i].json {
			t.Errorf("message %d differs:\nmcap   %s %d %s\nsqlite %s %d %s", i, m[i].topic, m[i].t, m[i].json, s[i].topic, s[i].t, s[i].json)
		}
	}
	basic := byTopic(m, "/test_topic")
	if len(basic) != 3 {
		t.Fatalf("%d BasicTypes", len(basic))
	}
	for _, tc := range []struct {
		path string
		want any
	}{
		{"int32_value", int32(123)}, {"bool_value", false}, {"byte_value", uint8(0)}, {"float64_value", float64(0)},
		{"uint64_value", uint64(0)}, {"char_value", uint8(0)},
	} {
		if got, err := basic[0].value.Get(tc.path); err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("BasicTypes %s = %#v (%v), want %#v", tc.path, got, err, tc.want)
		}
	}
	arrays := byTopic(m, "/array_topic")
	if len(arrays) != 4 {
		t.Fatalf("%d Arrays", len(arrays))
	}
	for _, tc := range []struct {
		path string
		want any
	}{
		{"bool_values", []bool{true, false, true}},
		{"string_values", []string{"Complex Hello1", "Complex Hello2", "Complex Hello3"}},
		{"float32_values", []float32{0, 0, 0}},
		{"int64_values", []int64{0, 0, 0}},
		{"byte_values", []byte{0, 0, 0}},
		{"basic_types_values[2].int32_value", int32(0)},
	} {
		if got, err := arrays[0].value.Get(tc.path); err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Arrays %s = %#v (%v), want %#v", tc.path, got, err, tc.want)
		}
	}
	// the defaults of test_msgs/Arrays, written by the test as declared
	def := arrays[0].value.Def
	if i := def.FieldIndex("int32_values_default"); i >= 0 {
		if got := arrays[0].value.Fields[i]; !reflect.DeepEqual(got, []int32{0, 2147483647, -2147483648}) {
			t.Errorf("int32_values_default = %v", got)
		}
	} else {
		t.Error("Arrays has no int32_values_default")
	}
	if i := def.FieldIndex("string_values_default"); i >= 0 {
		if got := arrays[0].value.Fields[i]; !reflect.DeepEqual(got, []string{"", "max value", "min value"}) {
			t.Errorf("string_values_default = %v", got)
		}
	}
}

// TestServiceEvents: service event topics decode (the .srv text becomes
// info, request[<=1], response[<=1]) from both storages, with the same
// Strings messages on the plain topics.
func TestServiceEvents(t *testing.T) {
	for _, path := range []string{tests + "mcap_bag_with_topics_and_service_events", tests + "sqlite3_bag_with_topics_and_service_events"} {
		t.Run(path, func(t *testing.T) {
			all := decodeAll(t, path)
			ev := byTopic(all, "/test_service1/_service_event")
			if len(ev) != 4 || len(byTopic(all, "/test_service2/_service_event")) != 4 {
				t.Fatalf("%d service events", len(ev))
			}
			var kinds []string
			for _, e := range ev {
				k, _ := e.value.Get("info.event_type")
				req, _ := e.value.Get("request")
				resp, _ := e.value.Get("response")
				kinds = append(kinds, fmt.Sprintf("%v:%d/%d", k, len(req.([]*msg.Value)), len(resp.([]*msg.Value))))
			}
			// REQUEST_SENT, REQUEST_RECEIVED, RESPONSE_SENT, RESPONSE_RECEIVED in some order
			if got := strings.Join(kinds, " "); !strings.Contains(got, "0:1/0") || !strings.Contains(got, "3:0/1") {
				t.Errorf("event kinds %s", got)
			}
			s := byTopic(all, "/test_topic1")
			if len(s) != 1 {
				t.Fatalf("%d /test_topic1", len(s))
			}
			if v, _ := s[0].value.Get("string_value_default3"); v != `Hello"world!` {
				t.Errorf("string_value_default3 = %q", v)
			}
		})
	}
}
