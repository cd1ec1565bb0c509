package capture

import (
	"os"
	"testing"

	"github.com/edged-robotics/edged/bag"
	"github.com/edged-robotics/edged/internal/sampledata"
)

// BenchmarkReplayG1 replays the real G1 episode (JPEG frames, joints,
// task states) through bag and Replay; "bag" only reads the same
// messages, the reference for the cost Replay adds.
func BenchmarkReplayG1(b *testing.B) {
	path := sampledata.Path(b, "g1_ep29.bag")
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	r, err := bag.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	cfg := Config{Cameras: []string{"/cam_high/image_raw/compressed"}, Joints: []string{"/joint_states"},
		FSM: []FSMTopic{{Topic: "/task_state"}}}
	topics := []string{"/cam_high/image_raw/compressed", "/joint_states", "/task_state"}
	b.Run("bag", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		for b.Loop() {
			n := 0
			if err := r.ForEach(func(m bag.Message) error { n += len(m.Data); return nil }, topics...); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("replay", func(b *testing.B) {
		b.SetBytes(st.Size())
		b.ReportAllocs()
		for b.Loop() {
			rp, err := NewReplay(cfg, Sinks{Frames: discardSink{}, Joints: discardSink{}, States: discardSink{}}, Options{})
			if err != nil {
				b.Fatal(err)
			}
			err = r.ForEach(func(m bag.Message) error {
				return rp.Handle(m.Conn.Topic, m.Conn.Publisher, m.Data, m.Time)
			}, topics...)
			if err != nil {
				b.Fatal(err)
			}
		}
	})
}
