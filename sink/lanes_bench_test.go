package sink

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/internal/s3test"
	"github.com/edged-robotics/edged/uplink/wire"
)

// BenchmarkLanesOnS3: one sink of a group writes 16 robots' sheets and
// segments into a real S3 server (versitygw on loopback), handling one
// message at a time (1 lane, the reference) and 8 at once, a robot's
// always in order (8 lanes); then the same with 10 ms added to every
// request, a distant object store's round trip. Reported: messages/s
// of each, and the ratios (lanes overlap the store's round trips; on
// loopback the sink and versitygw share the machine's cores).
func BenchmarkLanesOnS3(b *testing.B) {
	srv := s3test.Start(b)
	for _, tc := range []struct {
		name  string
		delay time.Duration
	}{{"loopback", 0}, {"10ms", 10 * time.Millisecond}} {
		b.Run(tc.name, func(b *testing.B) {
			var rate [2]float64
			for i := range b.N {
				for k, lanes := range []int{1, 8} {
					rate[k] += handleOnS3(b, srv, fmt.Sprintf("%s-run%d-lanes%d", tc.name, i, lanes), lanes, tc.delay)
				}
			}
			b.ReportMetric(rate[0]/float64(b.N), "msg/s-1-lane")
			b.ReportMetric(rate[1]/float64(b.N), "msg/s-8-lanes")
			b.ReportMetric(rate[1]/rate[0], "x-8-lanes/1")
		})
	}
}

// distant is a store farther away: every request takes delay
// more (a model of the network, not a synchronization).
type distant struct {
	blob.Blobs
	delay time.Duration
}

func (d distant) Get(name string, max int64) ([]byte, string, error) {
	time.Sleep(d.delay)
	return d.Blobs.Get(name, max)
}

func (d distant) Put(name string, b []byte, c blob.Cond) (string, error) {
	time.Sleep(d.delay)
	return d.Blobs.Put(name, b, c)
}

func (d distant) List(prefix string) ([]blob.Info, error) {
	time.Sleep(d.delay)
	return d.Blobs.List(prefix)
}

func (d distant) Delete(name string) error {
	time.Sleep(d.delay)
	return d.Blobs.Delete(name)
}

// handleOnS3 hands a fresh sink on prefix of srv (each request delay
// more) the messages of 16 robots from lanes goroutines (robot r on goroutine r % lanes, in
// order) and returns the messages handled per second.
func handleOnS3(b *testing.B, srv *s3test.Server, prefix string, lanes int, delay time.Duration) float64 {
	b.Helper()
	const robots, per = 16, 6
	st, err := s3.Open(context.Background(), srv.URL(prefix), s3.Options{Getenv: srv.Getenv})
	if err != nil {
		b.Fatal(err)
	}
	s, err := New(Config{Out: srv.URL(prefix), Store: distant{st, delay}, Group: "bench", StateDir: b.TempDir(), Lanes: lanes}, quiet)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	msgs := make([][][2]string, robots) // per robot: topic, payload
	jpeg := append([]byte{0xff, 0xd8}, bytes.Repeat([]byte{7}, 20<<10)...)
	for r := range robots {
		robot := fmt.Sprintf("arm-%02d", r)
		ep := robot + "-20231114T221320.000Z"
		for i := range per {
			sh, _ := (&wire.SheetBody{Camera: "/cam", Index: int64(i), Segment: -1, Name: fmt.Sprintf("sheet-%04d", i),
				Meta: []byte(`{}`), JPEG: jpeg}).MarshalMsg(nil)
			sg, _ := (&wire.Segment{Index: int64(i), Start: 1e18 + int64(i), End: 1e18 + int64(i) + 1, Label: "PICK",
				Outcome: "completed"}).MarshalMsg(nil)
			for _, m := range []struct {
				kind string
				body []byte
			}{{wire.KindSheet, sh}, {wire.KindSegment, sg}} {
				p, _ := wire.New(wire.NewID(), robot, ep, m.kind, uint64(i), 1, m.body).MarshalMsg(nil)
				msgs[r] = append(msgs[r], [2]string{"edged/" + robot + "/" + m.kind, string(p)})
			}
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for w := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := w; r < robots; r += lanes {
				for _, m := range msgs[r] {
					if err := s.Handle(m[0], []byte(m[1])); err != nil {
						b.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	return float64(robots*per*2) / time.Since(start).Seconds()
}
