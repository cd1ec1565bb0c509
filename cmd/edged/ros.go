package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/rostool"
	"github.com/spf13/cobra"
)

// rosFlags are the ROS connection flags shared by the tool subcommands.
type rosFlags struct {
	tool    string
	master  string
	name    string
	verbose bool
	ros2    rosFlags2
}

// add registers the flags; tool names the anonymous node (edged_TOOL_PID_MS).
func (f *rosFlags) add(cmd *cobra.Command, tool string) {
	f.tool = tool
	cmd.Flags().StringVar(&f.master, "master", "", "ROS master URI (default $ROS_MASTER_URI, else http://localhost:11311; __master:= also works)")
	cmd.Flags().StringVar(&f.name, "name", "", "node name to register as (default an anonymous edged_"+tool+"_PID_MS, as rostopic does; __name:= also works)")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "log connection events")
	f.ros2.add(cmd)
}

func (f *rosFlags) logger() *slog.Logger {
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
}

func (f *rosFlags) node(ctx context.Context) (*ros.Node, error) {
	log := f.logger()
	name := f.name
	if name == "" {
		name = rostool.AnonymousName(f.tool)
	}
	cfg := rosArgs.Apply(ros.Config{NodeName: name, Logger: log})
	if f.master != "" {
		cfg.MasterURI = f.master
	}
	return ros.NewNode(ctx, cfg)
}

// signalContext is cancelled by SIGINT or SIGTERM.
func signalContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}
