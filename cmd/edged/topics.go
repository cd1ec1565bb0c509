package main

import (
	"context"
	"fmt"
	"sort"
	"text/tabwriter"
	"time"

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
				return topicsROS2(cmd.Context(), cmd, &rf)
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
			defer cancel()
			n, err := rf.node(ctx)
			if err != nil {
				return err
			}
			defer n.Close()
			st, err := n.Master().GetSystemState(ctx)
			if err != nil {
				return fmt.Errorf("ask the master at %s for its topics (is rosmaster running? check ROS_MASTER_URI): %w", n.Master().URI(), err)
			}
			types, err := n.Master().GetTopicTypes(ctx)
			if err != nil {
				return fmt.Errorf("get topic types: %w", err)
			}
			sort.Slice(types, func(i, j int) bool { return types[i].Name < types[j].Name })
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "TOPIC\tTYPE\tPUBLISHERS\tSUBSCRIBERS")
			for _, t := range types {
				if !all && len(st.Publishers[t.Name]) == 0 {
					continue // the master keeps types of topics nobody publishes any more
				}
				fmt.Fprintf(w, "%s\t%s\t%d\t%d\n", t.Name, t.Type, len(st.Publishers[t.Name]), len(st.Subscribers[t.Name]))
			}
			return w.Flush()
		},
	}
	rf.add(cmd, "topics")
	cmd.Flags().BoolVar(&all, "all", false, "also list topics with no publisher (only subscribed, or published once)")
	return cmd
}
