package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
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
			p := echoPrinter{w: cmd.OutOrStdout(), json: asJSON, allBytes: allBytes, defs: map[*ros.PublisherInfo]echoDef{}}
			if rf.ros2.enabled {
				return echoROS2(ctx, cmd, &rf, &p, args[0], count, int(maxMessage))
			}
			n, err := rf.node(ctx)
			if err != nil {
				return err
			}
			defer n.Close()
			if err := checkMaster(ctx, n); err != nil {
				return err
			}
			max := int(maxMessage)
			sub, err := n.Subscribe(ctx, ros.SubscribeOptions{Topic: args[0], QueueSize: 64, MaxMessageBytes: max, QueueBytes: 2 * max})
			if err != nil {
				return err
			}
			defer sub.Close()
			notePublishers(ctx, n, sub.Topic(), cmd.ErrOrStderr())
			errs := time.NewTicker(time.Second)
			defer errs.Stop()
			var seenErrors uint64
			for printed := 0; count <= 0 || printed < count; {
				select {
				case <-ctx.Done():
					return nil
				case <-errs.C:
					if e := sub.Stats().Errors; e > seenErrors {
						fmt.Fprintf(cmd.ErrOrStderr(), "# %s: %d connection errors so far (a message over --max-message %s closes the connection; see -v)\n", sub.Topic(), e, maxMessage.String())
						seenErrors = e
					}
				case m := <-sub.Messages():
					err := p.print(m)
					m.Release()
					if err != nil {
						return err
					}
					printed++
				}
			}
			return nil
		},
	}
	rf.add(cmd, "echo")
	cmd.Flags().IntVar(&count, "count", 0, "exit after N messages (0: until interrupted)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per line: topic, type, publisher, received, msg")
	cmd.Flags().BoolVar(&allBytes, "bytes", false, "print every byte array's values, however long")
	cmd.Flags().Var(&maxMessage, "max-message", "largest message accepted (e.g. 256MiB)")
	return cmd
}

// echoPrinter decodes messages with their publisher's definition, parsed
// once per connection.
type echoPrinter struct {
	w         io.Writer
	ros2Types *cdr.Registry // nil: the bundled ROS 2 definitions
	json      bool
	allBytes  bool
	defs      map[*ros.PublisherInfo]echoDef
	buf       []byte
}

// echoDef decodes one publisher's messages: ROS1 from the definition it
// sent, ROS 2 (CDR) from the bundled definitions or --msg-dir.
type echoDef struct {
	Type   string
	decode func([]byte) (*msg.Value, error)
}

func (p *echoPrinter) definition(pub *ros.PublisherInfo) (echoDef, error) {
	if pub.Encoding == ros.EncodingCDR {
		reg := p.ros2Types
		if reg == nil {
			reg = cdr.Bundled()
		}
		d, err := reg.Parse(pub.Type, pub.MessageDefinition)
		if err != nil {
			return echoDef{}, fmt.Errorf("no definition of the ROS 2 type %s (give its .msg files with --msg-dir DIR laid out pkg/msg/Name.msg): %w", pub.Type, err)
		}
		return echoDef{Type: pub.Type, decode: d.Decode}, nil
	}
	d, err := msg.Parse(pub.Type, pub.MessageDefinition)
	if err != nil {
		return echoDef{}, fmt.Errorf("publisher %s sent a definition of %s that does not parse: %w", pub.CallerID, pub.Type, err)
	}
	return echoDef{Type: d.Type, decode: d.Decode}, nil
}

func (p *echoPrinter) print(m *ros.Message) error {
	def, ok := p.defs[m.Publisher]
	if !ok {
		d, err := p.definition(m.Publisher)
		if err != nil {
			return fmt.Errorf("%s: %w", m.Topic, err)
		}
		p.defs[m.Publisher], def = d, d
	}
	v, err := def.decode(m.Data)
	if err != nil {
		_, werr := fmt.Fprintf(p.w, "# %s: message of %d bytes does not decode as %s: %v\n", m.Topic, len(m.Data), def.Type, err)
		return werr
	}
	b := p.buf[:0]
	if p.json {
		b = append(b, `{"topic":`...)
		b = strconv.AppendQuote(b, m.Topic)
		b = append(b, `,"type":`...)
		b = strconv.AppendQuote(b, def.Type)
		b = append(b, `,"publisher":`...)
		b = strconv.AppendQuote(b, m.Publisher.CallerID)
		b = append(b, `,"received":`...)
		b = strconv.AppendQuote(b, m.Received.UTC().Format(time.RFC3339Nano))
		b = append(b, `,"msg":`...)
		b = p.appendValue(b, v)
		b = append(b, "}\n"...)
	} else {
		b = fmt.Appendf(b, "--- %s %s from %s at %s\n", m.Topic, def.Type, m.Publisher.CallerID, m.Received.Format("15:04:05.000"))
		b = p.appendValue(b, v)
		b = append(b, '\n')
	}
	p.buf = b
	_, err = p.w.Write(b)
	return err
}

func (p *echoPrinter) appendValue(b []byte, v *msg.Value) []byte {
	if p.allBytes {
		return v.AppendJSONBytes(b)
	}
	return v.AppendJSON(b)
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
