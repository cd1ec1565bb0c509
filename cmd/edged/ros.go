package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/edged-robotics/edged/ros"
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

// anonymousName is a node name no other process uses: the tool, the pid
// and the start time in milliseconds, as rostopic and rosnode name
// theirs, so two sessions never evict each other.
func anonymousName(tool string) string {
	return fmt.Sprintf("edged_%s_%d_%d", tool, os.Getpid(), time.Now().UnixMilli())
}

func (f *rosFlags) node(ctx context.Context) (*ros.Node, error) {
	log := f.logger()
	name := f.name
	if name == "" {
		name = anonymousName(f.tool)
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

// checkMaster fails with what to do when the master does not answer:
// a tool that waits silently on a dead master looks like an idle topic.
func checkMaster(ctx context.Context, n *ros.Node) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := n.Master().GetPid(ctx); err != nil {
		return fmt.Errorf("the ROS master at %s does not answer (is rosmaster running? check ROS_MASTER_URI or --master): %w", n.Master().URI(), err)
	}
	return nil
}

// notePublishers writes a note to w when nobody publishes topic yet.
func notePublishers(ctx context.Context, n *ros.Node, topic string, w io.Writer) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	st, err := n.Master().GetSystemState(ctx)
	if err == nil && len(st.Publishers[topic]) == 0 {
		fmt.Fprintf(w, "# no node publishes %s yet; waiting for one (Ctrl-C to stop)\n", topic)
	}
}
