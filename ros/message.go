package ros

import (
	"time"

	"github.com/edged-robotics/edged/ros/tcpros"
)

// PublisherInfo is what a publisher told us in its TCPROS connection
// header. It is shared by every Message from that connection: read-only.
type PublisherInfo struct {
	CallerID          string // the publisher's node name
	URI               string // the publisher's slave API URI
	Type              string // e.g. sensor_msgs/Image
	MD5Sum            string
	MessageDefinition string // full text, with nested MSG: blocks
	Latching          bool
	// Encoding is how Data is serialized: EncodingROS1 ("", every TCPROS
	// publisher and ROS1 bag) or EncodingCDR (ROS 2: rosbag2 and DDS,
	// with Type spelled pkg/msg/Name). Consumers pick the decoder by it.
	Encoding string
}

// The values of PublisherInfo.Encoding.
const (
	EncodingROS1 = ""
	EncodingCDR  = "cdr"
)

// Message is one serialized message body as received (without the 4-byte
// length prefix). Data is borrowed from a pool: it is valid until Release,
// and the receiver must call Release exactly once.
type Message struct {
	Topic     string
	Publisher *PublisherInfo
	Data      []byte
	Received  time.Time // wall clock at the end of the read

	release  func(*Message)
	buf      *tcpros.Buffer // pooled storage behind Data
	reserved int            // bytes charged to the subscription's budget
}

// Release returns the message's buffer to its pool. After Release the
// Message and its Data must not be used.
func (m *Message) Release() {
	if m.release != nil {
		r := m.release
		m.release = nil
		r(m)
	}
}

// SetRelease makes Release call fn (once) instead of returning a TCPROS
// buffer: for another transport (ros2/dds) whose Data it owns, so that
// capture handles its messages like any other. fn must be bound once and
// reused (a method value per message would allocate).
func (m *Message) SetRelease(fn func(*Message)) { m.release = fn }

// SubscribeOptions configures one subscription.
type SubscribeOptions struct {
	Topic string
	// Type to register with the master; "" or "*" subscribes to any type
	// (md5sum "*"), which is what edged does by default.
	Type string
	// QueueSize bounds the messages waiting for the consumer; when it is
	// full the oldest waiting message is dropped and counted. Default
	// DefaultQueueSize (8).
	QueueSize int
	// QueueBytes bounds the message bytes the subscription holds at once,
	// whatever its publishers do: frames being read, messages queued and
	// messages delivered but not yet released. A frame that does not fit
	// first drops the oldest queued messages; if it still does not fit
	// (the rest is being read or held by the consumer) it is read and
	// discarded; both are counted in Drops. Must be >= MaxMessageBytes.
	// Default DefaultQueueBytes (2 x MaxMessageBytes).
	QueueBytes int
	// MaxMessageBytes caps one frame read from a publisher; a larger
	// length closes that connection and is counted. Default
	// DefaultMaxMessageBytes, 64 MiB (a 4K rgb8 image is 24.9 MB, rgba16
	// would be 66 MB).
	MaxMessageBytes int
	// MaxPublishers caps the publishers the subscription connects to;
	// further URIs (from the master or publisherUpdate) are ignored and
	// counted in RefusedPublishers. Default DefaultMaxPublishers.
	MaxPublishers int
	// TCPNoDelay asks publishers for tcp_nodelay.
	TCPNoDelay bool
	// Handler, when set, receives every message on the goroutine that
	// read it instead of through Messages(): no hand-off to another
	// goroutine per message. Calls come from one goroutine per publisher
	// connection, so they may be concurrent. Handler owns m (Release it
	// exactly once) and must be quick and never block: while it runs
	// that connection is not read (the kernel's socket buffer, then the
	// publisher's own queue, take up a stall). The byte budget still
	// holds: a message not yet released keeps its bytes charged.
	// Messages() then delivers nothing; it is closed by Close, which
	// returns once no Handler call is running.
	Handler func(m *Message)
}

// SubscriptionStats are the counters of one subscription, cumulative.
type SubscriptionStats struct {
	Messages   uint64 // delivered to the queue (or to the Handler)
	Bytes      uint64 // message bytes received
	Drops      uint64 // dropped: the queue was full (count or bytes)
	Errors     uint64 // connections closed for bad frames or headers
	Connects   uint64 // publisher connections established
	Reconnects uint64 // connections re-established after a loss
	Publishers int    // currently connected publishers

	HeldBytes         int64  // message bytes held now (reading, queued, unreleased)
	RefusedPublishers uint64 // publisher URIs ignored: over MaxPublishers or not http://host:port
}

// DefaultMaxPublishers is the default SubscribeOptions.MaxPublishers. A
// topic edged captures has a handful of publishers (one camera driver,
// one state machine); each costs a goroutine, a socket and a connection
// header of up to Config.MaxHeaderBytes, so a list of thousands of URIs
// (a hostile publisherUpdate, a master full of dead nodes) must not
// become thousands of connections.
const DefaultMaxPublishers = 16
