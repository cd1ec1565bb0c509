package main

import (
	"fmt"
	"os"
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
