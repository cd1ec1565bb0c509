package clip

import (
	"sync"
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/clip/policy"
)

// BenchmarkPutWhileClipping: capture's side of the ring (Put of a
// 10 KB frame) alone and while clips of the same ring are written
// back to back; the two rates compared in one run say what writing
// clips costs capture (only a frame's copy under the ring's lock).
func BenchmarkPutWhileClipping(b *testing.B) {
	for _, clipping := range []bool{false, true} {
		name := "idle"
		if clipping {
			name = "clipping"
		}
		b.Run(name, func(b *testing.B) {
			ring := newRing(b, 1000)
			frame := capture.Frame{Topic: "/cam", Format: capture.FormatJPEG, Encoding: "jpeg", Data: make([]byte, 10_000)}
			for i := range 200 {
				frame.Stamp = t0.Add(time.Duration(i) * 10 * time.Millisecond)
				_ = ring.Put(&frame)
			}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			if clipping {
				cfg := policy.Default()
				cfg.Pre, cfg.Post, cfg.MinInterval = time.Second, 0, 0
				s := stageFor(b, cfg, b.TempDir(), Camera{Name: "cam", Topic: "/cam", Ring: ring})
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := 1; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						at := t0.Add(2*time.Second + time.Duration(i)) // the ring's newest second
						_, _ = s.Trigger(Trigger{Kind: KindRequest, Time: at})
						s.Advance(at.Add(settle))
					}
				}()
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(frame.Data)))
			b.ResetTimer()
			for i := range b.N {
				frame.Stamp = t0.Add(2*time.Second + time.Duration(i)*time.Microsecond)
				if err := ring.Put(&frame); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			close(stop)
			wg.Wait()
		})
	}
}
