package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/edged-robotics/edged/blob/s3"
	"github.com/edged-robotics/edged/score/fleet"
	"github.com/edged-robotics/edged/sink"
)

func init() { register(newSinkCmd) }

func newSinkCmd() *cobra.Command {
	var cfg sink.Config
	var o sink.ServeOptions
	var fleetEvery time.Duration
	c := &cobra.Command{
		Use:   "sink --broker URL --out DIR|s3://BUCKET/PREFIX [--group NAME --id ID]",
		Short: "Receive what robots upload over MQTT and write each episode as a directory",
		Long: `sink subscribes to PREFIX/+/+ (with --group: $share/NAME/PREFIX/+/+), validates
every message, drops duplicates by id (also across restarts), reassembles
chunks and writes each episode into OUT/episodes/EPISODE in the robot's own
format, so edged inspect, score, export and report work on OUT as on a
robot's data_dir; OUT/robots/ROBOT/status.json holds each robot's status.
With --listen, /fleet and /metrics show the fleet view of OUT's annotations
(edged score --store, docs/annotate.md), recomputed every --fleet-every.
It acknowledges every complete episode to its robot. See docs/wire.md.
Sinks of one --group share the load and one OUT (a directory on one host,
or an object store): give each a stable --id of its own. See docs/fleet.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if s3.IsURL(cfg.Out) {
				st, err := s3.OpenShared(cmd.Context(), cfg.Out, s3.Options{})
				if err != nil {
					return err
				}
				cfg.Store = st
			}
			if fleetEvery > 0 && o.Listen != "off" {
				o.Fleet = &fleet.Watcher{Every: fleetEvery}
			}
			return sink.Serve(cmd.Context(), cfg, o)
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
	f.StringVar(&o.PasswordFile, "password-file", "", "file holding the MQTT password")
	f.StringVar(&cfg.Auth.CAFile, "ca-file", "", "PEM CA that verifies the broker")
	f.StringVar(&cfg.Auth.CertFile, "cert-file", "", "client certificate (mutual TLS)")
	f.StringVar(&cfg.Auth.KeyFile, "key-file", "", "client key (mutual TLS)")
	f.DurationVar(&cfg.RepairAfter, "repair-after", sink.DefaultRepairAfter, fmt.Sprintf(
		"ask a robot for what an ended, incomplete episode lacks this long after its end arrived (then backing off, %d times at most)", sink.DefaultMaxRepairAsks))
	f.StringVar(&o.Listen, "listen", "off", "serve /metrics (Prometheus) and /healthz on this address, e.g. 127.0.0.1:9465; off: none")
	f.DurationVar(&fleetEvery, "fleet-every", fleet.DefaultEvery, "with --listen, recompute the fleet view (/fleet, edged_fleet_* on /metrics: docs/annotate.md) this often; 0: none")
	f.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the run to this file when the sink stops (go tool pprof reads it)")
	_ = c.MarkFlagRequired("broker")
	_ = c.MarkFlagRequired("out")
	return c
}
