package dds

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"

	"github.com/edged-robotics/edged/ros"
)

// ErrNotBuilt is returned by every constructor of a build without Cyclone
// DDS (the purego tag, or CGO_ENABLED=0).
var ErrNotBuilt = errors.New("dds: edged was built without Cyclone DDS (purego tag or CGO_ENABLED=0); " +
	"install cyclonedds-dev (make deps) and build with cgo to use ROS 2")

// ErrNoParticipantIndex is returned by NewParticipant when Cyclone DDS
// finds every participant index of the domain taken (ParticipantIndex
// auto, the LoopbackConfig's and many robots' setting, gives each
// process on a machine its own index up to MaxAutoParticipantIndex):
// the configuration is fine, the machine has too many DDS processes.
var ErrNoParticipantIndex = errors.New("dds: every DDS participant index of the domain is taken by other processes " +
	"(Cyclone DDS Discovery/ParticipantIndex auto): stop some ROS 2 processes, or raise " +
	"Discovery/MaxAutoParticipantIndex in the Cyclone DDS configuration (CYCLONEDDS_URI) of every process on the domain")

// MaxDomainID is the largest DDS domain id: with the default port mapping
// (base 7400, domain gain 250) port numbers overflow above 232.
const MaxDomainID = 232

// Config configures a Participant.
type Config struct {
	// DomainID is the DDS domain (ROS_DOMAIN_ID): 0..232, default 0.
	DomainID int
	// CycloneConfig is Cyclone DDS configuration (XML, or file:// URIs as
	// CYCLONEDDS_URI takes) for this domain, e.g. LoopbackConfig. ""
	// leaves it to CYCLONEDDS_URI and Cyclone's defaults. The first
	// participant on a domain in this process decides its configuration.
	CycloneConfig string
	// Logger; default slog.Default().
	Logger *slog.Logger
}

// Validate checks c without I/O.
func (c Config) Validate() error {
	if c.DomainID < 0 || c.DomainID > MaxDomainID {
		return fmt.Errorf("ros2.domain_id: must be 0..%d, got %d", MaxDomainID, c.DomainID)
	}
	return nil
}

// DomainFromEnv is the domain id every ROS 2 node takes from
// ROS_DOMAIN_ID (rcl's rule): unset or empty is 0; anything else must be
// an id in 0..MaxDomainID. A value that is not refuses to start, as rcl
// does, instead of joining domain 0, where edged would wait for
// publishers that live on another domain.
func DomainFromEnv() (int, error) {
	v := strings.TrimSpace(os.Getenv("ROS_DOMAIN_ID"))
	if v == "" {
		return 0, nil
	}
	id, err := strconv.Atoi(v)
	if err != nil || id < 0 || id > MaxDomainID {
		return 0, fmt.Errorf("ROS_DOMAIN_ID=%q: must be a domain id 0..%d (or unset: 0); fix the environment or set ros2.domain_id", v, MaxDomainID)
	}
	return id, nil
}

// LoopbackConfig is a Cyclone DDS configuration that keeps a domain on
// 127.0.0.1 with unicast discovery (loopback has no multicast): for tests
// and for a robot whose ROS 2 graph lives on one machine. Every process
// on the domain must use it (CYCLONEDDS_URI).
const LoopbackConfig = `<CycloneDDS><Domain><General><Interfaces><NetworkInterface address="127.0.0.1"/></Interfaces>` +
	`<AllowMulticast>false</AllowMulticast></General><Discovery><ParticipantIndex>auto</ParticipantIndex>` +
	`<MaxAutoParticipantIndex>60</MaxAutoParticipantIndex><Peers><Peer address="127.0.0.1"/></Peers></Discovery></Domain></CycloneDDS>`

// SubscribeOptions configures one Subscription.
type SubscribeOptions struct {
	// Topic is the ROS 2 topic name (/camera/image/compressed).
	Topic string
	// DDSTopic, when set, is the DDS topic read instead of Topic's
	// rt/ topic: a service's request or reply topic (ServiceTopics),
	// Topic then naming the service in logs. Type must be set and QoS
	// not automatic (the graph knows rt/ topics only).
	DDSTopic string
	// Type is the ROS 2 type (sensor_msgs/msg/CompressedImage; the ROS1
	// spelling sensor_msgs/CompressedImage is accepted). "" or "*": the
	// type of the first publisher discovered on the topic whose type is
	// one of Types.
	Type string
	// Types are the ROS 2 types the consumer can use, when Type is "" (a
	// camera reads CompressedImage or Image): the reader takes the type
	// of the first publisher that offers one of them, so a writer of
	// another type that appears first (type squatting) decides nothing.
	// Empty: any type. Writers on the topic of a type the reader does not
	// read are warned about once each and counted (Mismatched).
	Types []string
	// QoS of the reader; the zero value adopts the publishers'.
	QoS QoS
	// QueueSize bounds the messages waiting for the consumer; when full
	// the oldest is dropped, released and counted. Default
	// ros.DefaultQueueSize (8), as for a ROS1 subscription.
	QueueSize int
	// MaxMessageBytes caps one serialized sample (encapsulation header
	// included); larger samples are refused inside Cyclone DDS before
	// they are copied, and counted in Errors. Default
	// ros.DefaultMaxMessageBytes (64 MiB).
	MaxMessageBytes int
	// QueueBytes bounds the sample bytes queued or delivered and not yet
	// released; a sample that does not fit drops the oldest queued ones,
	// else itself (counted in Drops). Must be >= MaxMessageBytes.
	// Default ros.DefaultQueueBytes (2 x MaxMessageBytes).
	QueueBytes int
	// Handler, when set, takes every sample on the participant's pump
	// instead of Messages() (which then delivers nothing), so a sample
	// crosses no goroutine between Cyclone and the consumer: a queue
	// hand-off costs each message a wake-up of the consumer and of an
	// idle thread the runtime starts for it. Calls are sequential, for
	// all the participant's topics alike; the handler releases each
	// message and must be quick and never block: while it runs no other
	// topic of the participant is taken and the graph is not followed
	// (the readers' histories hold what arrives meanwhile), so it must
	// not close the participant or a subscription of it, nor wait for the
	// graph. QueueBytes still bounds the bytes handed and not yet
	// released. Close returns once no call is running.
	Handler func(*ros.Message)
}

// ddsTopic is the DDS topic the subscription reads.
func (o SubscribeOptions) ddsTopic() string {
	if o.DDSTopic != "" {
		return o.DDSTopic
	}
	return DDSTopic(o.Topic)
}

// accepts reports whether a writer of DDS type ddsType offers a type o
// reads (after defaults): Type when set, else one of Types, else any.
func (o SubscribeOptions) accepts(ddsType string) bool {
	if o.Type != "" {
		t, _ := DDSType(o.Type)
		return t == ddsType
	}
	if len(o.Types) == 0 {
		return true
	}
	for _, typ := range o.Types {
		if t, _ := DDSType(typ); t == ddsType {
			return true
		}
	}
	return false
}

// maxMessageBytes is the largest MaxMessageBytes (the C side counts in
// uint32 and DDS samples are below 4 GiB anyway).
const maxMessageBytes = 1 << 30

func (o SubscribeOptions) withDefaults() SubscribeOptions {
	if o.QueueSize == 0 {
		o.QueueSize = ros.DefaultQueueSize
	}
	if o.MaxMessageBytes == 0 {
		o.MaxMessageBytes = ros.DefaultMaxMessageBytes
	}
	if o.QueueBytes == 0 {
		o.QueueBytes = ros.DefaultQueueBytes(o.MaxMessageBytes)
	}
	if o.Type == "*" {
		o.Type = ""
	}
	return o
}

// Validate checks o (after defaults) without I/O.
func (o SubscribeOptions) Validate() error {
	o = o.withDefaults()
	if _, ok := ROSTopic(DDSTopic(o.Topic)); !ok || len(o.ddsTopic()) > maxNameBytes {
		return fmt.Errorf("dds: topic %q: want a ROS 2 topic name like /camera/image", o.Topic)
	}
	if o.DDSTopic != "" && (o.Type == "" || o.QoS.Auto()) {
		return fmt.Errorf("dds: DDS topic %s: a type and a QoS without automatic fields are needed", o.DDSTopic)
	}
	for _, typ := range append([]string{o.Type}, o.Types...) {
		if typ == o.Type && typ == "" {
			continue // any of Types (or any type)
		}
		if t, ok := DDSType(typ); !ok || len(t) > maxNameBytes {
			return fmt.Errorf("dds: topic %s: type %q: want pkg/msg/Type", o.Topic, typ)
		}
	}
	if err := o.QoS.Validate(); err != nil {
		return fmt.Errorf("dds: topic %s: qos.%w", o.Topic, err)
	}
	switch {
	case o.QueueSize < 1:
		return fmt.Errorf("dds: topic %s: queue size must be >= 1", o.Topic)
	case o.MaxMessageBytes < 64 || o.MaxMessageBytes > maxMessageBytes:
		return fmt.Errorf("dds: topic %s: max message bytes must be 64..%d", o.Topic, maxMessageBytes)
	case o.QueueBytes < o.MaxMessageBytes:
		return fmt.Errorf("dds: topic %s: queue bytes must be >= max message bytes (%d)", o.Topic, o.MaxMessageBytes)
	}
	return nil
}

// Publication is one DDS writer on the domain, from the DCPSPublication
// built-in topic.
type Publication struct {
	Topic    string // ROS 2 topic name (/chatter); "" for a non-ROS DDS topic
	Type     string // ROS 2 type (std_msgs/msg/String); "" for a non-ROS DDS type
	DDSTopic string // rt/chatter
	DDSType  string // std_msgs::msg::dds_::String_
	GUID     string // the writer's GUID, hex
	Node     string // the full name of the ROS 2 node owning the writer (/talker), from ros_discovery_info; "" when unknown
	QoS      QoS    // the writer's reliability, durability and depth (-1: keep all)
}
