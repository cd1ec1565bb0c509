package main

import (
	"context"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/edged-robotics/edged/ros"
	"github.com/spf13/cobra"
)

// rosFlags are the ROS connection flags shared by the tool subcommands.
type rosFlags struct {
	master  string
	name    string
	verbose bool
}

func (f *rosFlags) add(cmd *cobra.Command, defaultName string) {
	cmd.Flags().StringVar(&f.master, "master", "", "ROS master URI (default $ROS_MASTER_URI, else http://localhost:11311)")
	cmd.Flags().StringVar(&f.name, "name", defaultName, "node name to register as")
	cmd.Flags().BoolVarP(&f.verbose, "verbose", "v", false, "log connection events")
}

func (f *rosFlags) node(ctx context.Context) (*ros.Node, error) {
	level := slog.LevelWarn
	if f.verbose {
		level = slog.LevelInfo
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	return ros.NewNode(ctx, ros.Config{MasterURI: f.master, NodeName: f.name, Logger: log})
}

// signalContext is cancelled by SIGINT or SIGTERM.
func signalContext(parent context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(parent, os.Interrupt, syscall.SIGTERM)
}
