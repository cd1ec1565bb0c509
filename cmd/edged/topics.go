package main

import (
	"context"
	"time"

	"github.com/edged-robotics/edged/rostool"
	"github.com/spf13/cobra"
)

func init() { register(newTopicsCmd) }

func newTopicsCmd() *cobra.Command {
	var (
		rf  rosFlags
		all bool
	)
	cmd := &cobra.Command{
		Use:   "topics",
		Short: "List the topics that nodes publish, with their types (--all: every topic the master knows; --ros2: a ROS 2 domain)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if rf.ros2.enabled {
				p, err := rf.ros2.participant(&rf)
				if err != nil {
					return err
				}
				defer p.Close()
				return rostool.TopicsROS2(cmd.Context(), p, cmd.OutOrStdout(), rf.ros2.discovery)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
			defer cancel()
			n, err := rf.node(ctx)
			if err != nil {
				return err
			}
			defer n.Close()
			return rostool.TopicsROS1(ctx, n, cmd.OutOrStdout(), all)
		},
	}
	rf.add(cmd, "topics")
	cmd.Flags().BoolVar(&all, "all", false, "also list topics with no publisher (only subscribed, or published once)")
	return cmd
}
