package bag

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// sliceStream is a Stream over message times (in ns), ending with err.
type sliceStream struct {
	name  string
	times []int64
	err   error
	pos   int
	log   *[]string
}

func (s *sliceStream) Next() bool {
	if s.pos >= len(s.times) {
		return false
	}
	s.pos++
	return true
}
func (s *sliceStream) Message() Message {
	return Message{Conn: &Connection{Topic: s.name}, Time: time.Unix(0, s.times[s.pos-1])}
}
func (s *sliceStream) Err() error { return s.err }
func (s *sliceStream) Close()     { *s.log = append(*s.log, "close "+s.name) }

// TestMerge: log-time order with ties to the input given first, each
// input opened only once the merge reaches its Start and closed at its
// end, and a failed input either dropped (Failed says go on) or ending
// the merge.
func TestMerge(t *testing.T) {
	bad := errors.New("damaged chunk")
	type in struct {
		name  string
		start int64
		times []int64
		err   error
	}
	tests := []struct {
		name   string
		inputs []in
		goOn   bool
		want   string // the merge's messages and events, in order
		err    error
	}{
		{"ties to the first input", []in{{"a", 0, []int64{1, 3}, nil}, {"b", 0, []int64{1, 2}, nil}}, false,
			"open a,open b,a@1,b@1,b@2,close b,a@3,close a", nil},
		{"opened at its start", []in{{"a", 1, []int64{1, 2}, nil}, {"b", 5, []int64{5, 6}, nil}}, false,
			"open a,a@1,a@2,close a,open b,b@5,b@6,close b", nil},
		{"overlapping starts", []in{{"a", 1, []int64{1, 7}, nil}, {"b", 5, []int64{5}, nil}}, false,
			"open a,a@1,open b,b@5,close b,a@7,close a", nil},
		{"failed input dropped", []in{{"a", 0, []int64{1}, bad}, {"b", 0, []int64{2, 3}, nil}}, true,
			"open a,open b,a@1,close a,failed a,b@2,b@3,close b", nil},
		{"failed input ends the merge", []in{{"a", 0, []int64{1}, bad}, {"b", 0, []int64{2, 3}, nil}}, false,
			"open a,open b,a@1,close a,failed a,close b", bad},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var log []string
			inputs := make([]Input, len(tc.inputs))
			for i, x := range tc.inputs {
				inputs[i] = Input{Start: time.Unix(0, x.start), Open: func() (Stream, error) {
					log = append(log, "open "+x.name)
					return &sliceStream{name: x.name, times: x.times, err: x.err, log: &log}, nil
				}}
			}
			m := Merge(inputs, MergeOptions{Failed: func(i int, err error) bool {
				log = append(log, "failed "+tc.inputs[i].name)
				return tc.goOn
			}})
			for m.Next() {
				msg := m.Message()
				if got := tc.inputs[m.Input()].name; got != msg.Conn.Topic {
					t.Fatalf("Input() is %s for a message of %s", got, msg.Conn.Topic)
				}
				log = append(log, fmt.Sprintf("%s@%d", msg.Conn.Topic, msg.Time.UnixNano()))
			}
			m.Close()
			m.Close() // safe twice
			if got := strings.Join(log, ","); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if !errors.Is(m.Err(), tc.err) || (tc.err == nil) != (m.Err() == nil) {
				t.Errorf("Err() = %v, want %v", m.Err(), tc.err)
			}
		})
	}
}
