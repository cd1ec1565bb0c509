//go:build cgo && !purego

package dds_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
	"github.com/edged-robotics/edged/ros2/dds"
	"github.com/edged-robotics/edged/ros2/ddstest"
)

// 720p JPEG frames are ~150 KB.
const benchFrame = 150_000

// BenchmarkIngestCamera: a 720p CompressedImage stream from a C publisher
// on Cyclone DDS, received and decoded (cdr.DecodeCompressedImage) as
// capture does; allocs/op must be 0. Reports ingest CPU of this process
// as ns/op of wall time; see BenchmarkIngestCRef for the C reference.
func BenchmarkIngestCamera(b *testing.B) {
	tools := ddstest.Build(b)
	domain := ddstest.Domain()
	p, err := dds.NewParticipant(dds.Config{DomainID: domain, CycloneConfig: dds.LoopbackConfig})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	s, err := p.Subscribe(context.Background(), dds.SubscribeOptions{Topic: "/cam/compressed", Type: "sensor_msgs/msg/CompressedImage",
		QoS: dds.ProfileSensorData, QueueSize: 64})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	// best effort, as camera drivers publish (sensor data QoS), paced at
	// 1 ms; extra frames cover the ones best effort loses
	pub := ddstest.Start(b, tools.Pub, domain, "-t", "/cam/compressed", "-k", "image", "-w", "-b", "-p", "1",
		"-n", strconv.Itoa(2*b.N+100), "-s", strconv.Itoa(benchFrame))
	pub.WaitLine(b, "ready")
	var img msg.CompressedImage
	// warm up the pools
	for i := 0; i < 20; i++ {
		m := <-s.Messages()
		_ = cdr.DecodeCompressedImage(m.Data, &img)
		m.Release()
	}
	b.SetBytes(benchFrame)
	b.ReportAllocs()
	stall := time.NewTimer(20 * time.Second) // reset, not re-created: time.After allocates
	defer stall.Stop()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stall.Reset(20 * time.Second)
		select {
		case m := <-s.Messages():
			if err := cdr.DecodeCompressedImage(m.Data, &img); err != nil || len(img.Data) != benchFrame {
				b.Fatalf("decode: %v, %d bytes", err, len(img.Data))
			}
			m.Release()
		case <-stall.C:
			b.Fatalf("stalled at %d/%d: %+v", i, b.N, s.Stats())
		}
	}
	b.StopTimer()
	if d := s.Stats().Drops; d > 0 {
		b.Logf("%d drops", d)
	}
}

// BenchmarkIngestCRef runs the plain Cyclone DDS C subscriber on the same
// stream and reports its CPU per GB (cpu-ns/GB), the reference for
// scripts/bench-ros2.sh's ratio.
func BenchmarkIngestCRef(b *testing.B) {
	tools := ddstest.Build(b)
	domain := ddstest.Domain()
	n := b.N + 20
	sub := ddstest.Start(b, tools.Sub, domain, "-t", "/cam/compressed", "-n", strconv.Itoa(n))
	sub.WaitLine(b, "ready")
	pub := ddstest.Start(b, tools.Pub, domain, "-t", "/cam/compressed", "-k", "image", "-w", "-D", "64",
		"-n", strconv.Itoa(n+100), "-s", strconv.Itoa(benchFrame))
	pub.WaitLine(b, "ready")
	b.SetBytes(benchFrame)
	line := sub.WaitLine(b, "done")
	var got, bytes, cpu int64
	if _, err := fmt.Sscanf(strings.TrimPrefix(line, "done "), "%d %d %d", &got, &bytes, &cpu); err != nil || bytes == 0 {
		b.Fatalf("sub said %q", line)
	}
	b.ReportMetric(float64(cpu)/float64(bytes)*1e9, "cpu-ns/GB")
}
