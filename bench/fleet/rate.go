package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// The sustained rate: what the sinks take per second while they have
// work, read from their own /metrics (edged sink --listen), so that the
// idle start (robots connecting, the first sheets 10 s away) and end
// (waiting for the last acknowledgements) of a run do not weigh in.

// handledMetric counts every MQTT message a sink took (chunks and
// duplicates included): its load.
const handledMetric = "edged_sink_received_total"

// sample is the sinks' handled counts at one time.
type sample struct {
	at      time.Time
	handled []float64 // per sink
}

func (s sample) total() float64 {
	var t float64
	for _, h := range s.handled {
		t += h
	}
	return t
}

// rateSampler scrapes the sinks every interval until Close.
type rateSampler struct {
	urls    []string
	cancel  context.CancelFunc
	done    chan struct{}
	samples []sample // the run loop's until done is closed
	err     error    // the last failed scrape, if every one failed
}

func startRateSampler(urls []string, interval time.Duration) *rateSampler {
	ctx, cancel := context.WithCancel(context.Background())
	r := &rateSampler{urls: urls, cancel: cancel, done: make(chan struct{})}
	go r.run(ctx, interval)
	return r
}

func (r *rateSampler) run(ctx context.Context, interval time.Duration) {
	defer close(r.done)
	client := &http.Client{Timeout: 5 * time.Second}
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		s := sample{at: time.Now()}
		for _, u := range r.urls {
			v, err := scrapeCounter(ctx, client, u, handledMetric)
			if err != nil {
				r.err = err
				s.handled = nil
				break
			}
			s.handled = append(s.handled, v)
		}
		if s.handled != nil {
			r.samples = append(r.samples, s)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Close stops sampling and returns the samples.
func (r *rateSampler) Close() ([]sample, error) {
	r.cancel()
	<-r.done
	if len(r.samples) == 0 && r.err != nil {
		return nil, fmt.Errorf("fleet: no sink's /metrics could be read: %w", r.err)
	}
	return r.samples, nil
}

// scrapeCounter reads the counter name from the /metrics at url.
func scrapeCounter(ctx context.Context, c *http.Client, url, name string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("%s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", url, err)
	}
	f := fams[name]
	if f == nil || len(f.GetMetric()) != 1 {
		return 0, fmt.Errorf("%s: no %s", url, name)
	}
	return f.GetMetric()[0].GetCounter().GetValue(), nil
}

// sustained is the messages/s the sinks took between the times their
// total crossed the fractions lo and hi of its final value (0.1 and 0.9:
// the run's middle 80% of the work), and each sink's share of it.
func sustained(samples []sample, lo, hi float64) (rate float64, perSink []float64, ok bool) {
	if len(samples) < 2 {
		return 0, nil, false
	}
	// The work of the run: what the sinks took after the first sample
	// (a sink may have taken messages queued for it before).
	base := samples[0].total()
	work := samples[len(samples)-1].total() - base
	if work <= 0 {
		return 0, nil, false
	}
	first, last := -1, -1
	for i, s := range samples {
		done := s.total() - base
		if first < 0 && done >= lo*work {
			first = i
		}
		if done <= hi*work {
			last = i
		}
	}
	if first < 0 || last <= first {
		return 0, nil, false
	}
	a, b := samples[first], samples[last]
	secs := b.at.Sub(a.at).Seconds()
	if secs <= 0 {
		return 0, nil, false
	}
	for i := range a.handled {
		perSink = append(perSink, (b.handled[i]-a.handled[i])/secs)
	}
	return (b.total() - a.total()) / secs, perSink, true
}
