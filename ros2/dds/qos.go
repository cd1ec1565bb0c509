package dds

import (
	"fmt"
	"strings"
)

// Reliability is a reader's reliability QoS. ReliabilityAuto (the zero
// value) takes the publishers': reliable when every publisher known when
// the reader is created is reliable, else best effort (which matches
// both).
type Reliability uint8

// Reliability kinds.
const (
	ReliabilityAuto Reliability = iota
	BestEffort
	Reliable
)

// Durability is a reader's durability QoS. DurabilityAuto (the zero
// value) is transient-local when every publisher known when the reader
// is created is transient-local (a latched topic: the reader gets the
// last samples on joining), else volatile (which matches both).
type Durability uint8

// Durability kinds.
const (
	DurabilityAuto Durability = iota
	Volatile
	TransientLocal
)

// QoS is the part of a reader's QoS edged sets. The zero value is fully
// automatic: it adopts the QoS of the topic's publishers, as ros2 bag
// record does, so it matches them whatever they use.
type QoS struct {
	Reliability Reliability
	Durability  Durability
	// Depth is the history depth of a transient-local reader (the last
	// samples it gets on joining); 0: 10. Other readers keep all samples
	// until edged's reader goroutine moves them into its bounded queue
	// (a KEEP_LAST history there would overwrite samples uncounted).
	Depth int
}

// The ROS 2 profiles (rmw_qos_profile_default, _sensor_data, and the
// transient-local "latched" profile of tf_static, robot_description).
var (
	ProfileDefault    = QoS{Reliability: Reliable, Durability: Volatile, Depth: 10}
	ProfileSensorData = QoS{Reliability: BestEffort, Durability: Volatile, Depth: 5}
	ProfileLatched    = QoS{Reliability: Reliable, Durability: TransientLocal, Depth: 1}
)

// DefaultDepth is the history depth of a QoS with Depth 0.
const DefaultDepth = 10

// MaxDepth caps Depth: Cyclone holds up to Depth samples per reader of up
// to MaxMessageBytes each.
const MaxDepth = 1000

// ParseProfile returns the QoS named by a profile: "auto" (or ""),
// "default", "sensor_data", "latched" (alias "transient_local").
func ParseProfile(name string) (QoS, error) {
	switch strings.ToLower(name) {
	case "", "auto":
		return QoS{}, nil
	case "default", "reliable":
		return ProfileDefault, nil
	case "sensor_data", "best_effort":
		return ProfileSensorData, nil
	case "latched", "transient_local":
		return ProfileLatched, nil
	}
	return QoS{}, fmt.Errorf("unknown QoS profile %q: want auto, default, sensor_data or latched", name)
}

// Validate checks q without I/O.
func (q QoS) Validate() error {
	if q.Reliability > Reliable {
		return fmt.Errorf("reliability: unknown value %d", q.Reliability)
	}
	if q.Durability > TransientLocal {
		return fmt.Errorf("durability: unknown value %d", q.Durability)
	}
	if q.Depth < 0 || q.Depth > MaxDepth {
		return fmt.Errorf("depth: must be 0..%d, got %d", MaxDepth, q.Depth)
	}
	return nil
}

// Auto reports whether q needs the publishers' QoS to be resolved.
func (q QoS) Auto() bool {
	return q.Reliability == ReliabilityAuto || q.Durability == DurabilityAuto
}

// Resolve fills q's automatic fields from the publishers' QoS (pubs may
// be empty: best effort and volatile, which match any publisher) and the
// default depth.
func (q QoS) Resolve(pubs []QoS) QoS {
	allReliable, allLatched := len(pubs) > 0, len(pubs) > 0
	for _, p := range pubs {
		allReliable = allReliable && p.Reliability == Reliable
		allLatched = allLatched && p.Durability == TransientLocal
	}
	if q.Reliability == ReliabilityAuto {
		q.Reliability = BestEffort
		if allReliable {
			q.Reliability = Reliable
		}
	}
	if q.Durability == DurabilityAuto {
		q.Durability = Volatile
		if allLatched {
			q.Durability = TransientLocal
		}
	}
	if q.Depth == 0 {
		q.Depth = DefaultDepth
	}
	return q
}

func (q QoS) String() string {
	r := map[Reliability]string{ReliabilityAuto: "auto", BestEffort: "best_effort", Reliable: "reliable"}[q.Reliability]
	d := map[Durability]string{DurabilityAuto: "auto", Volatile: "volatile", TransientLocal: "transient_local"}[q.Durability]
	return fmt.Sprintf("%s/%s/depth=%d", r, d, q.Depth)
}
