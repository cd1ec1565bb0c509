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
	// until edged's pump moves them into its bounded queue
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

// profiles is the one table of the reader QoS profiles a user names
// (config's ros2.qos values): each profile's name, its aliases and its
// QoS. ParseProfile reads it; config applies ParseProfile, so the
// config check accepts exactly what a subscription does.
var profiles = []struct {
	name, alias string
	qos         QoS
}{
	{"auto", "", QoS{}},
	{"default", "reliable", ProfileDefault},
	{"sensor_data", "best_effort", ProfileSensorData},
	{"latched", "transient_local", ProfileLatched},
}

// ProfileNames lists every name ParseProfile accepts (aliases
// included), in the table's order.
func ProfileNames() []string {
	var out []string
	for _, p := range profiles {
		out = append(out, p.name)
		if p.alias != "" {
			out = append(out, p.alias)
		}
	}
	return out
}

// ParseProfile returns the QoS named by a profile, in any case: "auto"
// (or ""), "default" (alias "reliable"), "sensor_data" (alias
// "best_effort"), "latched" (alias "transient_local").
func ParseProfile(name string) (QoS, error) {
	n := strings.ToLower(name)
	if n == "" {
		return QoS{}, nil
	}
	var want []string
	for _, p := range profiles {
		if n == p.name || (p.alias != "" && n == p.alias) {
			return p.qos, nil
		}
		want = append(want, p.name+aliasNote(p.alias))
	}
	return QoS{}, fmt.Errorf("unknown QoS profile %q: want one of %s", name, strings.Join(want, ", "))
}

func aliasNote(alias string) string {
	if alias == "" {
		return ""
	}
	return " (or " + alias + ")"
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
