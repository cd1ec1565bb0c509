package rostool

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/ros2/cdr"
)

// Printer prints messages decoded with their publisher's definition,
// parsed once per publisher.
type Printer struct {
	W io.Writer
	// ROS2Types decodes ROS 2 (CDR) messages; nil: the bundled
	// definitions (cdr.Bundled).
	ROS2Types *cdr.Registry
	// JSON prints one object per line (topic, type, publisher,
	// received, msg) instead of text.
	JSON bool
	// AllBytes prints every byte array's values; else one longer than
	// 64 is summarized ({"bytes":N}).
	AllBytes bool

	defs map[*ros.PublisherInfo]definition
	buf  []byte
}

// definition decodes one publisher's messages.
type definition struct {
	Type   string
	decode func([]byte) (*msg.Value, error)
}

func (p *Printer) definition(pub *ros.PublisherInfo) (definition, error) {
	if pub.Encoding == ros.EncodingCDR {
		reg := p.ROS2Types
		if reg == nil {
			reg = cdr.Bundled()
		}
		d, err := reg.Parse(pub.Type, pub.MessageDefinition)
		if err != nil {
			return definition{}, fmt.Errorf("no definition of the ROS 2 type %s (give its .msg files with --msg-dir DIR laid out pkg/msg/Name.msg): %w", pub.Type, err)
		}
		return definition{Type: pub.Type, decode: d.Decode}, nil
	}
	d, err := msg.Parse(pub.Type, pub.MessageDefinition)
	if err != nil {
		return definition{}, fmt.Errorf("publisher %s sent a definition of %s that does not parse: %w", pub.CallerID, pub.Type, err)
	}
	return definition{Type: d.Type, decode: d.Decode}, nil
}

// Print prints m. A message that does not decode is a note, not an
// error; a publisher whose definition does not parse is an error.
func (p *Printer) Print(m *ros.Message) error {
	def, ok := p.defs[m.Publisher]
	if !ok {
		d, err := p.definition(m.Publisher)
		if err != nil {
			return fmt.Errorf("%s: %w", m.Topic, err)
		}
		if p.defs == nil {
			p.defs = map[*ros.PublisherInfo]definition{}
		}
		p.defs[m.Publisher], def = d, d
	}
	v, err := def.decode(m.Data)
	if err != nil {
		_, werr := fmt.Fprintf(p.W, "# %s: message of %d bytes does not decode as %s: %v\n", m.Topic, len(m.Data), def.Type, err)
		return werr
	}
	b := p.buf[:0]
	if p.JSON {
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
	_, err = p.W.Write(b)
	return err
}

func (p *Printer) appendValue(b []byte, v *msg.Value) []byte {
	if p.AllBytes {
		return v.AppendJSONBytes(b)
	}
	return v.AppendJSON(b)
}
