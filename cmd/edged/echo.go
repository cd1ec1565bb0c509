package main

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/spf13/cobra"
)

func init() { register(newEchoCmd) }

func newEchoCmd() *cobra.Command {
	var (
		rf     rosFlags
		count  int
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "echo TOPIC",
		Short: "Print a topic's messages, decoded from the publisher's own definition",
		Long: "Subscribes to TOPIC with any type (md5sum *) and prints each message decoded\n" +
			"from the definition its publisher sent. Large byte arrays are summarized\n" +
			"(an image shows as width, height, encoding and byte count).",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext(cmd.Context())
			defer cancel()
			n, err := rf.node(ctx)
			if err != nil {
				return err
			}
			defer n.Close()
			sub, err := n.Subscribe(ctx, ros.SubscribeOptions{Topic: args[0], QueueSize: 64})
			if err != nil {
				return err
			}
			defer sub.Close()
			p := echoPrinter{w: cmd.OutOrStdout(), json: asJSON, defs: map[*ros.PublisherInfo]*msg.Definition{}}
			for printed := 0; count <= 0 || printed < count; {
				select {
				case <-ctx.Done():
					return nil
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
	rf.add(cmd, "/edged_echo")
	cmd.Flags().IntVar(&count, "count", 0, "exit after N messages (0: until interrupted)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "one JSON object per line: topic, type, publisher, received, msg")
	return cmd
}

// echoPrinter decodes messages with their publisher's definition, parsed
// once per connection.
type echoPrinter struct {
	w    io.Writer
	json bool
	defs map[*ros.PublisherInfo]*msg.Definition
	buf  []byte
}

func (p *echoPrinter) print(m *ros.Message) error {
	def, ok := p.defs[m.Publisher]
	if !ok {
		d, err := msg.Parse(m.Publisher.Type, m.Publisher.MessageDefinition)
		if err != nil {
			return fmt.Errorf("%s: publisher %s sent a definition of %s that does not parse: %w", m.Topic, m.Publisher.CallerID, m.Publisher.Type, err)
		}
		p.defs[m.Publisher], def = d, d
	}
	v, err := def.Decode(m.Data)
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
		b = v.AppendJSON(b)
		b = append(b, "}\n"...)
	} else {
		b = fmt.Appendf(b, "--- %s %s from %s at %s\n", m.Topic, def.Type, m.Publisher.CallerID, m.Received.Format("15:04:05.000"))
		b = v.AppendJSON(b)
		b = append(b, '\n')
	}
	p.buf = b
	_, err = p.w.Write(b)
	return err
}
