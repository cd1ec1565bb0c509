package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/edged-robotics/edged/internal/httpserve"
	"github.com/edged-robotics/edged/sink"
)

func init() { register(newSinkCmd) }

func newSinkCmd() *cobra.Command {
	var cfg sink.Config
	var passwordFile, cpuProfile, listen string
	c := &cobra.Command{
		Use:   "sink --broker URL --out DIR|s3://BUCKET/PREFIX [--group NAME --id ID]",
		Short: "Receive what robots upload over MQTT and write each episode as a directory",
		Long: `sink subscribes to PREFIX/+/+ (with --group: $share/NAME/PREFIX/+/+), validates
every message, drops duplicates by id (also across restarts), reassembles
chunks and writes each episode into OUT/episodes/EPISODE in the robot's own
format, so edged inspect, score, export and report work on OUT as on a
robot's data_dir; OUT/robots/ROBOT/status.json holds each robot's status.
It acknowledges every complete episode to its robot. See docs/wire.md.
Sinks of one --group share the load and one OUT (a directory on one host,
or an object store): give each a stable --id of its own. See docs/fleet.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if listen == "" {
				return errors.New("--listen: give HOST:PORT, e.g. 127.0.0.1:9465, or off")
			}
			if passwordFile != "" {
				b, err := os.ReadFile(passwordFile)
				if err != nil {
					return err
				}
				cfg.Auth.Password = string(trimNewline(b))
			}
			store, err := sinkStore(cmd.Context(), cfg.Out)
			if err != nil {
				return err
			}
			cfg.Store = store
			if cpuProfile != "" {
				stop, err := profileCPU(cpuProfile)
				if err != nil {
					return err
				}
				defer stop()
			}
			s, err := sink.New(cfg, slog.Default())
			if err != nil {
				return err
			}
			defer s.Close()
			if listen != "off" {
				_, stopHTTP, err := httpserve.Start(listen, "--listen", sinkHTTP(s), slog.Default())
				if err != nil {
					return err
				}
				defer stopHTTP()
			}
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			err = s.Run(ctx)
			slog.Info("sink: stopped", "stats", fmt.Sprintf("%+v", s.Stats()))
			return err
		},
	}
	f := c.Flags()
	f.StringVar(&cfg.Broker, "broker", "", "broker URL: tcp://host:1883 or ssl://host:8883 (required)")
	f.StringVar(&cfg.Out, "out", "", "output directory, or s3://BUCKET/PREFIX (endpoint and credentials from AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID... or ~/.aws/credentials) (required)")
	f.StringVar(&cfg.StateDir, "state", "", "local directory for the sink's own state (default OUT/.sink[/ID]; required with s3://)")
	f.StringVar(&cfg.Group, "group", "", "share the load with other sinks through $share/NAME/")
	f.StringVar(&cfg.Prefix, "topic-prefix", "edged", "topic prefix of the robots")
	f.IntVar(&cfg.Lanes, "lanes", 8, "messages handled at once (a robot's always in order); raise it for an object store's latency, e.g. 32 on s3://")
	f.StringVar(&cfg.ClientID, "id", "", "MQTT client id, stable across restarts and unique in the group (default edged-sink, or edged-sink-GROUP-HOST with --group)")
	f.StringVar(&cfg.ClientID, "client-id", "", "same as --id")
	f.StringVar(&cfg.Auth.Username, "username", "", "MQTT username")
	f.StringVar(&passwordFile, "password-file", "", "file holding the MQTT password")
	f.StringVar(&cfg.Auth.CAFile, "ca-file", "", "PEM CA that verifies the broker")
	f.StringVar(&cfg.Auth.CertFile, "cert-file", "", "client certificate (mutual TLS)")
	f.StringVar(&cfg.Auth.KeyFile, "key-file", "", "client key (mutual TLS)")
	f.DurationVar(&cfg.RepairAfter, "repair-after", sink.DefaultRepairAfter, fmt.Sprintf(
		"ask a robot for what an ended, incomplete episode lacks this long after its end arrived (then backing off, %d times at most)", sink.DefaultMaxRepairAsks))
	f.StringVar(&listen, "listen", "off", "serve /metrics (Prometheus) and /healthz on this address, e.g. 127.0.0.1:9465; off: none")
	f.StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file when the sink stops (go tool pprof reads it)")
	_ = c.MarkFlagRequired("broker")
	_ = c.MarkFlagRequired("out")
	return c
}

// sinkHTTP serves the sink's /metrics and /healthz (ready while it is
// subscribed at the broker).
func sinkHTTP(s *sink.Sink) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(s.Collector(), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		var problems []string
		if !s.State().Connected {
			problems = append(problems, "not subscribed at the broker (see the sink's log)")
		}
		httpserve.Health(w, problems)
	})
	return mux
}

// profileCPU profiles the process's CPU into path until stop is called.
func profileCPU(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			slog.Error("sink: the CPU profile was not written", "file", path, "err", err)
		}
	}, nil
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
