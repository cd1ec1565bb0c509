package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/daemon"
	"github.com/edged-robotics/edged/internal/cpuprofile"
	"github.com/edged-robotics/edged/ros/rosout"
	"github.com/spf13/cobra"
)

func init() { register(newRunCmd) }

// stopDeadline bounds a shutdown (the unit's TimeoutStopSec is 30s).
const stopDeadline = 25 * time.Second

func newRunCmd() *cobra.Command {
	var (
		cfgPath, cpuProfile string
		debug               bool
	)
	cmd := &cobra.Command{
		Use:   "run --config FILE [__name:=NAME] [__ns:=NS] [from:=to]...",
		Short: "Run the daemon: capture, sheets, FSM ground truth (SIGHUP reloads cameras, joints and checks)",
		Long: "Runs the daemon. ROS arguments as roscpp takes them (and roslaunch appends)\n" +
			"may follow: __name:=, __ns:=, __master:=, __hostname:=, __ip:=, __log:=FILE\n" +
			"(the log is also appended there), _param:=value and topic remappings\n" +
			"from:=to. The log goes to stderr and to /rosout.\n\n" +
			"Exit status: 0 after SIGTERM/SIGINT; 3 when the ROS graph asked edged to end\n" +
			"(rosnode kill, or a newer node took its name: the systemd unit does not\n" +
			"restart it then); 1 on any other error; 2 when a shutdown hung.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(cfgPath)
			if err != nil {
				return err
			}
			level := new(slog.LevelVar) // rosservice call .../set_logger_level changes it
			if debug {
				level.Set(slog.LevelDebug)
			}
			logHandler, closeLog, err := runLogHandler(level)
			if err != nil {
				return err
			}
			defer closeLog()
			rosLog := rosout.New(logHandler, level)
			log := slog.New(rosLog)
			stopProfile, err := cpuprofile.Start(cpuProfile, log) // refused here, before joining the graph
			if err != nil {
				return err
			}
			defer stopProfile() // after Run returned: SIGTERM/SIGINT end Run
			reload, stopReload := reloadOnHUP()
			defer stopReload()
			d, err := daemon.New(cfg, daemon.Options{Logger: log, Version: version, Reload: reload,
				LoadConfig: func() (*config.Config, error) { return config.Load(cfgPath) },
				ROSArgs:    rosArgs, Rosout: rosLog, LogLevel: level})
			if err != nil {
				return err
			}
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			go exitIfStopHangs(ctx, log)
			return d.Run(ctx)
		},
	}
	cmd.Flags().StringVarP(&cfgPath, "config", "c", "/etc/edged/edged.yaml", "config file")
	cmd.Flags().BoolVar(&debug, "debug", false, "debug logging")
	cmd.Flags().StringVar(&cpuProfile, "cpuprofile", "", "write a CPU profile of the run to this file when edged stops (go tool pprof reads it)")
	return cmd
}

// reloadOnHUP forwards SIGHUP to reload (a reload already pending
// absorbs another) until stop, which waits for the forwarding goroutine.
func reloadOnHUP() (reload chan struct{}, stop func()) {
	reload = make(chan struct{}, 1)
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-quit:
				return
			case <-hup:
				select {
				case reload <- struct{}{}:
				default: // a reload is already pending
				}
			}
		}
	}()
	return reload, func() { signal.Stop(hup); close(quit); <-done }
}

// exitIfStopHangs ends the process (status 2) when a stop begun by ctx
// takes longer than stopDeadline, before systemd's TimeoutStopSec. It
// lives as long as the process: a stop that finishes returns from main.
func exitIfStopHangs(ctx context.Context, log *slog.Logger) {
	<-ctx.Done()
	time.Sleep(stopDeadline)
	log.Error("edged: shutdown took longer than its deadline; exiting", "deadline", stopDeadline)
	os.Exit(2)
}

// runLogHandler is the terminal's handler, also appending to the file
// roslaunch names with __log:= (as roscpp writes its log there).
func runLogHandler(level slog.Leveler) (slog.Handler, func(), error) {
	opts := &slog.HandlerOptions{Level: level, AddSource: false}
	term := slog.NewTextHandler(os.Stderr, opts)
	if rosArgs.Log == "" {
		return term, func() {}, nil
	}
	if err := os.MkdirAll(filepath.Dir(rosArgs.Log), 0o755); err != nil {
		return nil, nil, fmt.Errorf("__log:=%s: %w", rosArgs.Log, err)
	}
	f, err := os.OpenFile(rosArgs.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("__log:=%s: %w", rosArgs.Log, err)
	}
	return slog.NewMultiHandler(term, slog.NewTextHandler(f, opts)), func() { _ = f.Close() }, nil
}

// exitCode maps an error from a subcommand to edged's exit status.
func exitCode(err error) int {
	if errors.Is(err, daemon.ErrROSShutdown) {
		return daemon.ExitROSShutdown
	}
	return 1
}
