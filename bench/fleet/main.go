package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"sync"
	"syscall"
	"time"
)

type options struct {
	robots, sinks, cameras int
	episode                time.Duration
	broker, edged, out     string
	tmp                    string
	maxPayload             int
	reconnect              float64
	timeout                time.Duration
	jsonOut                string
	keepLogs               bool
	sinkCores              int
	sinkCPU                float64
	tls                    bool
	acl                    string
	profile                string
	compare                bool
}

// result is the run's figures.
type result struct {
	Robots, Sinks           int
	TLS                     bool // mutual TLS, an identity per robot, the deploy ACL
	Seconds                 float64
	Messages, Bytes         int64
	MessagesPerS, BytesPerS float64
	// SustainedPerS: the MQTT messages/s (chunks included) the sinks
	// took during the middle 80% of their work (rate.go), each sink's
	// share in SustainedPerSink (0 when too few samples to tell).
	// PacedPerS is the slowest sink's share times the sinks: what the
	// group carries for good when the broker hands each sink an equal
	// share (mosquitto's round robin), so the slowest sets the pace.
	SustainedPerS           float64
	SustainedPerSink        []float64 `json:",omitempty"`
	PacedPerS               float64
	SinkCPUSeconds          []float64
	SinkCPUPercent          []float64
	SinkThrottledPercent    []float64 `json:",omitempty"` // -sink-cpu: of the quota periods, those it ran out in
	CPUMsPerMessage         float64   // all sinks' CPU per message
	BrokerCPUSeconds        float64   `json:",omitempty"` // the mosquitto this run started (TLS is mostly its cost)
	ConnectSeconds          float64   // connecting the fleet, 50 robots at a time
	BrokerConnectCPUSeconds float64   `json:",omitempty"` // the broker's CPU meanwhile (TLS handshakes)
	LatencyP50, LatencyP99  float64   // seconds, episode_end -> ack
	Episodes                int
	Lost, Duplicated        int
	Corrupt                 int
	Reconnects              int
}

func main() {
	var o options
	flag.IntVar(&o.robots, "robots", 1000, "simulated robots")
	flag.IntVar(&o.sinks, "sinks", 1, "edged sink processes in one group")
	flag.IntVar(&o.cameras, "cameras", 1, "cameras per robot")
	flag.DurationVar(&o.episode, "episode", 60*time.Second, "episode length")
	flag.StringVar(&o.broker, "broker", "", "broker URL (default: start mosquitto)")
	flag.StringVar(&o.edged, "edged", "bin/edged", "the edged binary")
	flag.StringVar(&o.out, "out", "", "the sinks' shared output (default: a temporary directory, removed)")
	flag.StringVar(&o.tmp, "tmp", "", "where the temporary directory goes (default: $TMPDIR or /tmp; /dev/shm keeps the disk out of the figures)")
	flag.IntVar(&o.maxPayload, "max-payload", 64<<10, "robots' MQTT payload cap (larger bodies are chunked)")
	flag.Float64Var(&o.reconnect, "reconnect", 0.05, "fraction of robots that reconnect once mid-episode")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "give up waiting for acks after the episodes end")
	flag.StringVar(&o.jsonOut, "json", "", "also write the figures as JSON here")
	flag.BoolVar(&o.keepLogs, "keep-logs", false, "keep the sinks' logs (and the output, with -out)")
	flag.IntVar(&o.sinkCores, "sink-cores", 0, "GOMAXPROCS of each sink (0: Go's default, every core); 1 models a core per sink")
	flag.Float64Var(&o.sinkCPU, "sink-cpu", 0, "hold each sink to this many cores by a CPU cgroup quota (0: no limit; needs root)")
	flag.BoolVar(&o.tls, "tls", false, "mutual TLS: a certificate per robot (CN = robot id) and for the sinks, the broker applying -acl")
	flag.StringVar(&o.acl, "acl", aclPath, "with -tls: the broker's ACL file")
	flag.StringVar(&o.profile, "profile", "", "write each sink's CPU profile to DIR/sink-N.pprof (go tool pprof bin/edged DIR/sink-0.pprof)")
	flag.BoolVar(&o.compare, "compare", false, "run a one-sink fleet (its own broker) at the same time as the -sinks one, and report what the group carries against it: "+
		"both share the machine's noise (use with -sink-cpu)")
	flag.Parse()
	if o.sinkCPU < 0 || o.sinkCPU > float64(runtime.NumCPU()) {
		log.Fatalf("-sink-cpu: must be between 0 and %d (the machine's cores)", runtime.NumCPU())
	}
	log.SetFlags(log.Ltime)
	// Interrupted, run still stops the broker and the sinks it started.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.compare {
		os.Exit(compare(ctx, o))
	}
	r, err := run(ctx, o)
	if err != nil {
		log.Fatal(err)
	}
	printResult(r, o)
	if o.jsonOut != "" {
		writeJSON(o.jsonOut, r)
	}
	if r.Lost+r.Duplicated+r.Corrupt > 0 {
		os.Exit(1)
	}
}

func printResult(r *result, o options) {
	security := "plain TCP"
	if r.TLS {
		security = "mutual TLS, one identity per robot, ACL"
	}
	fmt.Printf("fleet: %d robots (%s), %d sink(s), %.0f s: %d messages (%.0f/s), %.1f MB (%.2f MB/s)\n",
		r.Robots, security, r.Sinks, r.Seconds, r.Messages, r.MessagesPerS, float64(r.Bytes)/1e6, r.BytesPerS/1e6)
	for i := range r.SinkCPUSeconds {
		fmt.Printf("  sink %d: %.1f CPU s (%.0f%% of a core)", i, r.SinkCPUSeconds[i], r.SinkCPUPercent[i])
		if o.sinkCPU > 0 {
			fmt.Printf(", its %.2f-core quota ran out in %.0f%% of the periods", o.sinkCPU, r.SinkThrottledPercent[i])
		}
		fmt.Println()
	}
	if r.BrokerCPUSeconds > 0 {
		fmt.Printf("  broker: %.1f CPU s (%.0f%% of a core); connecting the robots took %.1f s and %.1f broker CPU s\n",
			r.BrokerCPUSeconds, 100*r.BrokerCPUSeconds/r.Seconds, r.ConnectSeconds, r.BrokerConnectCPUSeconds)
	}
	if r.SustainedPerS > 0 {
		fmt.Printf("  sustained (the sinks' middle 80%% of work): %.0f MQTT messages/s, per sink %.0f; at the slowest sink's pace %.0f/s\n",
			r.SustainedPerS, r.SustainedPerSink, r.PacedPerS)
	}
	fmt.Printf("  sink CPU per message: %.2f ms; arrival latency (episode_end -> ack) p50 %.2f s, p99 %.2f s\n",
		r.CPUMsPerMessage, r.LatencyP50, r.LatencyP99)
	fmt.Printf("  episodes %d: lost %d, duplicated %d, corrupt %d; robots that reconnected %d\n",
		r.Episodes, r.Lost, r.Duplicated, r.Corrupt, r.Reconnects)
}

func writeJSON(path string, v any) {
	b, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, o options) (*result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tmp, err := os.MkdirTemp(o.tmp, "edged-fleet-")
	if err != nil {
		return nil, err
	}
	defer func() {
		if o.keepLogs {
			log.Printf("fleet: sink logs and the broker's config kept in %s", tmp)
			return
		}
		os.RemoveAll(tmp)
	}()
	if o.out == "" {
		o.out = filepath.Join(tmp, "out")
	}
	var procs []*proc
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	var ids *fleetPKI
	if o.tls {
		if o.broker != "" {
			return nil, errors.New("-tls starts its own broker: leave -broker out")
		}
		if ids, err = newFleetPKI(tmp, o.acl); err != nil {
			return nil, err
		}
	}
	var broker []*proc // the one this run started, if any
	if o.broker == "" {
		b, err := startMosquitto(tmp, ids)
		if err != nil {
			return nil, err
		}
		procs = append(procs, b)
		broker = append(broker, b)
		o.broker = b.url
	}
	var sinks []*proc
	for i := range o.sinks {
		s, err := startSink(o, tmp, i, ids)
		if err != nil {
			return nil, err
		}
		procs = append(procs, s)
		sinks = append(sinks, s)
	}
	fleet := newFleet(o, ids)
	brokerBoot, connectStart := cpuOf(broker), time.Now()
	if err := fleet.connect(ctx); err != nil {
		return nil, err
	}
	defer fleet.close()
	connected := time.Since(connectStart)
	cpu0, brokerCPU0 := cpuOf(sinks), cpuOf(broker)
	periods0, throttled0 := periodsOf(sinks)
	urls := make([]string, len(sinks))
	for i, s := range sinks {
		urls[i] = s.metrics
	}
	// Once a second: a scrape costs the sink CPU that the quota would
	// otherwise give to messages.
	rates := startRateSampler(urls, time.Second)
	defer rates.Close() // a second Close only waits for the first
	start := time.Now()
	log.Printf("fleet: %d robots connected; recording %s episodes", o.robots, o.episode)
	var wg sync.WaitGroup
	for _, r := range fleet.robots {
		wg.Add(1)
		go func() { defer wg.Done(); r.play(ctx, o) }()
	}
	wg.Wait()
	log.Printf("fleet: episodes ended after %s; waiting for the acks", time.Since(start).Round(time.Second))
	fleet.waitAcks(ctx, o.timeout)
	elapsed := time.Since(start)
	samples, err := rates.Close()
	if err != nil {
		return nil, err
	}
	cpu1, brokerCPU1 := cpuOf(sinks), cpuOf(broker)
	periods1, throttled1 := periodsOf(sinks)
	res := &result{Robots: o.robots, Sinks: o.sinks, TLS: o.tls, Seconds: elapsed.Seconds(), Episodes: len(fleet.robots)}
	var lat []float64
	for _, r := range fleet.robots {
		res.Messages += r.msgs
		res.Bytes += r.bytes
		if r.reconnected {
			res.Reconnects++
		}
		switch n := r.ackCount(); {
		case n == 0:
			res.Lost++
		case n > 1:
			res.Duplicated++
		default:
			lat = append(lat, r.latency().Seconds())
		}
	}
	res.Corrupt, res.Lost = fleet.verify(filepath.Join(o.out, "episodes"), res.Lost)
	res.MessagesPerS = float64(res.Messages) / elapsed.Seconds()
	res.BytesPerS = float64(res.Bytes) / elapsed.Seconds()
	res.SustainedPerS, res.SustainedPerSink, _ = sustained(samples, 0.1, 0.9)
	if len(res.SustainedPerSink) > 0 {
		res.PacedPerS = float64(len(res.SustainedPerSink)) * slices.Min(res.SustainedPerSink)
	}
	var total float64
	for i := range sinks {
		s := cpu1[i] - cpu0[i]
		total += s
		res.SinkCPUSeconds = append(res.SinkCPUSeconds, s)
		res.SinkCPUPercent = append(res.SinkCPUPercent, 100*s/elapsed.Seconds())
		if o.sinkCPU > 0 {
			res.SinkThrottledPercent = append(res.SinkThrottledPercent, 100*(throttled1[i]-throttled0[i])/max(1, periods1[i]-periods0[i]))
		}
	}
	res.ConnectSeconds = connected.Seconds()
	for i := range broker {
		res.BrokerCPUSeconds += brokerCPU1[i] - brokerCPU0[i]
		res.BrokerConnectCPUSeconds += brokerCPU0[i] - brokerBoot[i]
	}
	if res.Messages > 0 {
		res.CPUMsPerMessage = 1000 * total / float64(res.Messages)
	}
	sort.Float64s(lat)
	res.LatencyP50, res.LatencyP99 = quantile(lat, 0.5), quantile(lat, 0.99)
	return res, nil
}

func quantile(s []float64, q float64) float64 {
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(q*float64(len(s))))]
}
