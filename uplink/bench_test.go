package uplink_test

import (
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/uplink"
	"github.com/edged-robotics/edged/uplink/mqttconn"
	"github.com/edged-robotics/edged/uplink/wire"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkPublishSheets: 100 KB sheets (chunked at 128 KiB, with their
// snippets) through the outbox and the publisher to a real mosquitto;
// reports this process's CPU per MB shipped. No sink runs in-process.
func BenchmarkPublishSheets(b *testing.B) {
	br := brokertest.Start(b, brokertest.Options{})
	u := newUplink(b, b.TempDir(), br.URL, mqttconn.Auth{}, func(c *uplink.Config) { c.MaxPayload = 128 << 10; c.OutboxBytes = 1 << 30 })
	defer u.Close()
	s := fakeSheet(1, 100_000)
	b.ReportAllocs()
	b.SetBytes(int64(len(s.JPEG)))
	cpu0 := cpuTime()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s.Meta.Index = i + 1
		if err := u.Sheet(epID("bench"), s); err != nil {
			b.Fatal(err)
		}
	}
	if !u.Flush(time.Minute) {
		b.Fatal("outbox did not drain")
	}
	b.StopTimer()
	mb := float64(b.N) * float64(len(s.JPEG)) / 1e6
	b.ReportMetric(float64(cpuTime()-cpu0)/1e6/mb, "cpu-ms/MB")
}

// BenchmarkEndToEnd: latency from enqueue (Segment) to the sink's file
// on loopback, p50 and p99; the restart variant restarts the broker
// every 100 messages.
func BenchmarkEndToEnd(b *testing.B) {
	for _, restart := range []bool{false, true} {
		name := "steady"
		if restart {
			name = "broker-restarts"
		}
		b.Run(name, func(b *testing.B) {
			br := brokertest.Start(b, brokertest.Options{})
			got := make(chan uint64, 1024)
			r := startSinkB(b, br.URL, func(e *wire.Envelope) { got <- e.Seq })
			_ = r
			u := newUplink(b, b.TempDir(), br.URL, mqttconn.Auth{}, func(c *uplink.Config) { c.MinBackoff, c.MaxBackoff = 20*time.Millisecond, 100*time.Millisecond })
			defer u.Close()
			lat := make([]time.Duration, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if restart && i > 0 && i%100 == 0 {
					br.Stop()
					br.Start()
				}
				t0 := time.Now()
				if err := u.Segment(manifest(epID("lat"), false), segment(i+1)); err != nil {
					b.Fatal(err)
				}
				for seq := range got {
					if seq == uint64(i+1) {
						break
					}
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
		})
	}
}
