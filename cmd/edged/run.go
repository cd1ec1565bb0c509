package main

import (
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/daemon"
	"github.com/spf13/cobra"
)

func init() { register(newRunCmd) }

// stopDeadline bounds a shutdown (the unit's TimeoutStopSec is 30s).
const stopDeadline = 25 * time.Second

func newRunCmd() *cobra.Command {
	var (
		cfgPath string
		debug   bool
	)
	cmd := &cobra.Command{
		Use:   "run --config FILE",
		Short: "Run the daemon: capture, sheets, FSM ground truth (SIGHUP reloads cameras and joints)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(cfgPath)
			if err != nil {
				return err
			}
			level := slog.LevelInfo
			if debug {
				level = slog.LevelDebug
			}
			log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
			reload := make(chan struct{}, 1)
			hup := make(chan os.Signal, 1)
			signal.Notify(hup, syscall.SIGHUP)
			defer signal.Stop(hup)
			go func() { // forwards SIGHUP; ends with the process
				for range hup {
					select {
					case reload <- struct{}{}:
					default: // a reload is already pending
					}
				}
			}()
			d, err := daemon.New(cfg, daemon.Options{Logger: log, Version: version, Reload: reload,
				LoadConfig: func() (*config.Config, error) { return config.Load(cfgPath) }})
			if err != nil {
				return err
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			go func() { // a stop that hangs still ends, before systemd's TimeoutStopSec
				<-ctx.Done()
				time.Sleep(stopDeadline)
				log.Error("edged: shutdown took longer than its deadline; exiting", "deadline", stopDeadline)
				os.Exit(2)
			}()
			return d.Run(ctx)
		},
	}
	cmd.Flags().StringVarP(&cfgPath, "config", "c", "/etc/edged/edged.yaml", "config file")
	cmd.Flags().BoolVar(&debug, "debug", false, "debug logging")
	return cmd
}
