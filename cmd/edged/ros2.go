package main

import (
	"context"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/edged-robotics/edged/ros2/cdr"
	"github.com/edged-robotics/edged/ros2/dds"
	"github.com/spf13/cobra"
)

// rosFlags2 are the ROS 2 flags of the tool subcommands. ROS 2 is chosen
// by --ros2, or by ROS_VERSION=2 in the environment (ROS 2's setup.bash
// sets it); --domain defaults to ROS_DOMAIN_ID, else 0 (a bad
// ROS_DOMAIN_ID is an error unless --domain is given). Cyclone DDS reads
// its own configuration from CYCLONEDDS_URI.
type rosFlags2 struct {
	enabled   bool
	domain    int
	envErr    error          // dds.DomainFromEnv's
	cmd       *cobra.Command // whose --domain may be given
	discovery time.Duration
	msgDir    string
}

func (f *rosFlags2) add(cmd *cobra.Command) {
	domain, err := dds.DomainFromEnv()
	f.envErr, f.cmd = err, cmd
	cmd.Flags().BoolVar(&f.enabled, "ros2", os.Getenv("ROS_VERSION") == "2", "talk to a ROS 2 graph over DDS (Cyclone DDS) instead of a ROS1 master (default true when ROS_VERSION=2)")
	cmd.Flags().IntVar(&f.domain, "domain", domain, "ROS 2 domain id (default $ROS_DOMAIN_ID, else 0)")
	cmd.Flags().DurationVar(&f.discovery, "discovery", 2*time.Second, "ROS 2: how long to listen for publishers before listing or reporting none")
	cmd.Flags().StringVar(&f.msgDir, "msg-dir", "", "ROS 2: a directory of .msg files (pkg/msg/Name.msg) for types edged does not bundle")
}

func (f *rosFlags2) participant(rf *rosFlags) (*dds.Participant, error) {
	if f.envErr != nil && !f.cmd.Flags().Changed("domain") {
		return nil, fmt.Errorf("%w, or pass --domain", f.envErr)
	}
	if f.domain < 0 || f.domain > dds.MaxDomainID { // named as the user gave it, not as ros2.domain_id
		return nil, fmt.Errorf("--domain: must be 0..%d, got %d", dds.MaxDomainID, f.domain)
	}
	p, err := dds.NewParticipant(dds.Config{DomainID: f.domain, Logger: rf.logger()})
	if err != nil {
		return nil, fmt.Errorf("join ROS 2 domain %d: %w", f.domain, err)
	}
	return p, nil
}

// registry is the bundled ROS 2 definitions plus --msg-dir, loaded by
// cdr.Load as edged run and replay load ros2.msg_dirs.
func (f *rosFlags2) registry() (*cdr.Registry, error) {
	var dirs []string
	if f.msgDir != "" {
		dirs = append(dirs, f.msgDir)
	}
	reg, err := cdr.Load(dirs...)
	if err != nil {
		return nil, fmt.Errorf("--msg-dir: %w", err)
	}
	return reg, nil
}

// topicsROS2 lists the ROS 2 topics that have publishers on the domain,
// as the DCPSPublication built-in topic reports them after --discovery.
func topicsROS2(ctx context.Context, cmd *cobra.Command, rf *rosFlags) error {
	p, err := rf.ros2.participant(rf)
	if err != nil {
		return err
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(ctx, rf.ros2.discovery)
	defer cancel()
	<-ctx.Done() // discovery takes the whole window: publishers keep appearing
	pubs := p.Publications()
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "TOPIC\tTYPE\tPUBLISHERS\tQOS\tNODES")
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
			fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\n", t.Name, typ, t.Publishers, qos, nodes)
		}
	}
	return w.Flush()
}

// echoROS2 prints a ROS 2 topic's messages until count or ctx ends.
func echoROS2(ctx context.Context, cmd *cobra.Command, rf *rosFlags, pr *echoPrinter, topic string, count, maxMessage int) error {
	reg, err := rf.ros2.registry()
	if err != nil {
		return err
	}
	pr.ros2Types = reg
	p, err := rf.ros2.participant(rf)
	if err != nil {
		return err
	}
	defer p.Close()
	sub, err := p.Subscribe(ctx, dds.SubscribeOptions{Topic: topic, QueueSize: 64, MaxMessageBytes: maxMessage, QueueBytes: 2 * maxMessage})
	if err != nil {
		return err
	}
	defer sub.Close()
	noteROS2Publishers(ctx, cmd, rf, p, sub.Topic())
	for printed := 0; count <= 0 || printed < count; {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-sub.Messages():
			if !ok {
				return nil
			}
			err := pr.print(m)
			m.Release()
			if err != nil {
				return err
			}
			printed++
		}
	}
	return nil
}

// noteROS2Publishers writes a note when nobody publishes topic within
// the discovery window.
func noteROS2Publishers(ctx context.Context, cmd *cobra.Command, rf *rosFlags, p *dds.Participant, topic string) {
	ctx, cancel := context.WithTimeout(ctx, rf.ros2.discovery)
	defer cancel()
	_, err := p.WaitPublications(ctx, func(pubs []dds.Publication) bool {
		for _, pub := range pubs {
			if pub.Topic == topic {
				return true
			}
		}
		return false
	})
	if err != nil {
		fmt.Fprintf(cmd.ErrOrStderr(), "# no ROS 2 node publishes %s on domain %d yet; waiting for one (Ctrl-C to stop)\n", topic, rf.ros2.domain)
	}
}
