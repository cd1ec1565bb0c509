package sink

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/internal/cpuprofile"
	"github.com/edged-robotics/edged/internal/httpserve"
	"github.com/edged-robotics/edged/uplink/mqttconn"
)

// ServeOptions are what `edged sink` runs around a Sink. Errors name
// the command's flags, as Serve is that command's body.
type ServeOptions struct {
	// Listen is HOST:PORT to serve /metrics and /healthz on (port 0
	// picks a free one, logged); "off" serves none (--listen).
	Listen string
	// PasswordFile, when set, holds the broker password
	// (--password-file; it replaces Config.Auth.Password).
	PasswordFile string
	// CPUProfile, when set, is the file a CPU profile of the whole run
	// is written to when the sink stops (--cpuprofile).
	CPUProfile string
	// Logger; default slog.Default().
	Logger *slog.Logger
	// Fleet, when set, is shown at /fleet and in /metrics, computed from
	// the sink's episode store by its own goroutine, which Serve starts
	// and waits for (`edged sink` gives score/fleet's Watcher).
	Fleet View
}

// FlagKeys are the names of `edged sink`'s credential flags, what the
// errors and hints of Config.Auth name (New sets them when its Keys are
// not set): the sink is configured by flags, not by the robot's uplink
// keys.
var FlagKeys = mqttconn.Keys{Username: "--username", PasswordFile: "--password-file",
	CAFile: "--ca-file", CertFile: "--cert-file", KeyFile: "--key-file"}

// View is what the sink serves besides its own counters, computed from
// its episode store (the sink knows no scoring: cmd/edged gives it
// score/fleet's Watcher). Run computes it until ctx ends; ServeHTTP and
// Collect read what Run computed last, never the store.
type View interface {
	prometheus.Collector
	http.Handler
	Run(ctx context.Context, store blob.Blobs)
}

// Serve runs a Sink of cfg until ctx ends or the process gets SIGINT or
// SIGTERM, serving its endpoints meanwhile, and logs its Stats when it
// stops. Everything it starts is stopped before it returns.
func Serve(ctx context.Context, cfg Config, o ServeOptions) error {
	if o.Listen == "" {
		return errors.New("--listen: give HOST:PORT, e.g. 127.0.0.1:9465, or off")
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	if o.PasswordFile != "" {
		pw, err := mqttconn.ReadPasswordFile(FlagKeys.PasswordFile, o.PasswordFile)
		if err != nil {
			return err
		}
		cfg.Auth.Password = pw
	}
	if o.CPUProfile != "" {
		stop, err := ProfileCPU(o.CPUProfile, log)
		if err != nil {
			return err
		}
		defer stop()
	}
	s, err := New(cfg, log)
	if err != nil {
		return err
	}
	defer s.Close()
	if o.Listen != "off" {
		_, stopHTTP, err := httpserve.Start(o.Listen, "--listen", s.handler(o.Fleet), log)
		if err != nil {
			return err
		}
		defer stopHTTP()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.Fleet != nil {
		vctx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { defer close(done); o.Fleet.Run(vctx, s.Episodes()) }()
		defer func() { cancel(); <-done }()
	}
	err = s.Run(ctx)
	log.Info("sink: stopped", "stats", fmt.Sprintf("%+v", s.Stats()))
	return err
}

// Handler serves the sink's /metrics (Prometheus: the sink's counters
// and the Go runtime's and process's) and /healthz (ready while it is
// subscribed at the broker).
func (s *Sink) Handler() http.Handler { return s.handler(nil) }

// handler is Handler with view v, when not nil, at /fleet and in
// /metrics.
func (s *Sink) handler(v View) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(s.Collector(), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	if v != nil {
		reg.MustRegister(v)
		mux.Handle("GET /fleet", v)
	}
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

// ProfileCPU profiles the process's CPU into path until stop is called;
// a profile that could not be written is logged (the run itself went
// well). Errors name --cpuprofile.
func ProfileCPU(path string, log *slog.Logger) (stop func(), err error) {
	return cpuprofile.Start(path, log)
}

// Episodes is the sink's episode store (OUT/episodes), for the readers
// (episode.LoadBlobs) and a View.
func (s *Sink) Episodes() blob.Blobs { return blob.Sub(s.store, episode.EpisodesDir) }
