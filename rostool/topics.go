package rostool

import (
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros2/dds"
)

// AnonymousName is a node name no other process uses: the tool, the pid
// and the start time in milliseconds, as rostopic and rosnode name
// theirs, so two sessions never evict each other.
func AnonymousName(tool string) string {
	return fmt.Sprintf("edged_%s_%d_%d", tool, os.Getpid(), time.Now().UnixMilli())
}

// CheckMaster fails with what to do when the master does not answer
// within 5 s: a tool that waits silently on a dead master looks like an
// idle topic.
func CheckMaster(ctx context.Context, n *ros.Node) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if _, err := n.Master().GetPid(ctx); err != nil {
		return fmt.Errorf("the ROS master at %s does not answer (is rosmaster running? check ROS_MASTER_URI or --master): %w", n.Master().URI(), err)
	}
	return nil
}

// TopicsROS1 writes to w the table of the topics that nodes publish, as
// n's master knows them (all: also those with no publisher, whose types
// the master keeps), by name.
func TopicsROS1(ctx context.Context, n *ros.Node, w io.Writer, all bool) error {
	st, err := n.Master().GetSystemState(ctx)
	if err != nil {
		return fmt.Errorf("ask the master at %s for its topics (is rosmaster running? check ROS_MASTER_URI): %w", n.Master().URI(), err)
	}
	types, err := n.Master().GetTopicTypes(ctx)
	if err != nil {
		return fmt.Errorf("get topic types: %w", err)
	}
	sort.Slice(types, func(i, j int) bool { return types[i].Name < types[j].Name })
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOPIC\tTYPE\tPUBLISHERS\tSUBSCRIBERS")
	for _, t := range types {
		if !all && len(st.Publishers[t.Name]) == 0 {
			continue // the master keeps types of topics nobody publishes any more
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", t.Name, t.Type, len(st.Publishers[t.Name]), len(st.Subscribers[t.Name]))
	}
	return tw.Flush()
}

// TopicsROS2 writes to w the table of the ROS 2 topics that have
// publishers on p's domain, as the DCPSPublication built-in topic
// reports them after discovery (the whole window: publishers keep
// appearing).
func TopicsROS2(ctx context.Context, p *dds.Participant, w io.Writer, discovery time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, discovery)
	defer cancel()
	<-ctx.Done()
	pubs := p.Publications()
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TOPIC\tTYPE\tPUBLISHERS\tQOS\tNODES")
	for _, t := range dds.Topics(pubs) {
		qos := ""
		for _, pub := range pubs {
			if pub.Topic == t.Name {
				qos = pub.QoS.String()
				break
			}
		}
		nodes := strings.Join(t.Nodes, ",") // from ros_discovery_info; plain DDS writers have none
		if nodes == "" {
			nodes = "-"
		}
		for _, typ := range t.Types {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", t.Name, typ, t.Publishers, qos, nodes)
		}
	}
	return tw.Flush()
}
