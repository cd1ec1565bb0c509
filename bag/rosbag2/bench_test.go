package rosbag2

import (
	"testing"

	"github.com/edged-robotics/edged/internal/sampledata"
)

// BenchmarkRead reads every message of a bag through each storage.
func BenchmarkRead(b *testing.B) {
	for _, name := range []string{"ros2/g1_ep29_mcap", tests + "mcap_cdr_test", tests + "sqlite3_cdr_test", tests + "sqlite3_bag_with_topics_and_service_events"} {
		b.Run(name, func(b *testing.B) {
			r, err := Open(sampledata.Path(b, name), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			var size int64
			it := r.Messages()
			for it.Next() {
				size += int64(len(it.Message().Data))
			}
			it.Close()
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				it := r.Messages()
				for it.Next() {
				}
				if it.Err() != nil {
					b.Fatal(it.Err())
				}
				it.Close()
			}
		})
	}
}
