package main

import (
	"fmt"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/rostool"
	"github.com/spf13/cobra"
)

func init() { register(newEchoCmd) }

func newEchoCmd() *cobra.Command {
	var (
		rf         rosFlags
		count      int
		asJSON     bool
		allBytes   bool
		maxMessage sizeFlag = 64 << 20
	)
	cmd := &cobra.Command{
		Use:   "echo TOPIC",
		Short: "Print a topic's messages, decoded from the publisher's own definition",
		Long: "Subscribes to TOPIC with any type (md5sum *) and prints each message decoded\n" +
			"(ROS 2 with --ros2: over DDS on --domain, with the QoS of the topic's\n" +
			"publishers, decoded from the bundled ROS 2 definitions or --msg-dir)\n" +
			"from the definition its publisher sent. Byte arrays longer than 64 are\n" +
			"summarized as {\"bytes\":N} (an image shows as width, height, encoding and\n" +
			"byte count) unless --bytes is given. Messages over --max-message are refused\n" +
			"(the connection is closed and counted; a note says so). An unreachable master\n" +
			"is an error; a topic nobody publishes yet gets a note, then echo waits.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			e := rostool.Echo{Topic: args[0], Count: count, MaxMessageBytes: int(maxMessage), Notes: cmd.ErrOrStderr(),
				Discovery: rf.ros2.discovery, Printer: &rostool.Printer{W: cmd.OutOrStdout(), JSON: asJSON, AllBytes: allBytes}}
			if rf.ros2.enabled {
				reg, err := rf.ros2.registry()
				if err != nil {
					return err
				}
				e.Printer.ROS2Types = reg
				p, err := rf.ros2.participant(&rf)
				if err != nil {
					return err
				}
				defer p.Close()
				return e.ROS2(ctx, p)
			}
			n, err := rf.node(ctx)
			if err != nil {
				return err
			}
			defer n.Close()
			return e.ROS1(ctx, n)
		},
	}
	rf.add(cmd, "echo")
	cmd.Flags().IntVar(&count, "count", 0, "exit after N messages (0: until interrupted)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per line: topic, type, publisher, received, msg")
	cmd.Flags().BoolVar(&allBytes, "bytes", false, "print every byte array's values, however long")
	cmd.Flags().Var(&maxMessage, "max-message", "largest message accepted (e.g. 256MiB)")
	return cmd
}

// sizeFlag is a byte size flag in the config's units (64MiB, 1GiB).
type sizeFlag config.Size

func (s *sizeFlag) String() string { return config.Size(*s).String() }
func (s *sizeFlag) Type() string   { return "size" }
func (s *sizeFlag) Set(v string) error {
	n, err := config.ParseSize(v)
	if err != nil {
		return err
	}
	if n < 1024 || n > 1<<30 {
		return fmt.Errorf("must be in 1KiB..1GiB, got %s", v)
	}
	*s = sizeFlag(n)
	return nil
}
