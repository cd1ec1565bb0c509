package dds

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Node names (discovery.go): the participant also reads
// ros_discovery_info, where every ROS 2 participant lists its nodes
// and their writers' gids (24 bytes in Humble, 16 in Iron and later;
// told apart by which layout parses), and maps each writer GUID to
// its node's full name: Publication.Node, Topic.Nodes, and
// PublisherInfo.CallerID of every sample, found from the sample's
// publication handle (the writer's DCPSPublication instance). A
// subscription caches one PublisherInfo per writer and looks the name
// up again only after a graph change, so naming costs one atomic load
// per sample. Samples that arrive before their node's name, and
// writers of non-ROS DDS programs, have CallerID "". At most 1024
// participants' names are kept.

// ROS 2 nodes name themselves on the DDS topic ros_discovery_info: each
// participant publishes (reliable, transient local, keep last 1) one
// rmw_dds_common/msg/ParticipantEntitiesInfo listing its nodes and each
// node's reader and writer gids. A gid is the entity's 16-byte DDS GUID;
// Humble pads it with zeros to 24 bytes (RMW_GID_STORAGE_SIZE), Iron and
// later send the 16 bytes alone. Nothing on the wire says which, so the
// decoder tries 24, then 16, and takes the layout that parses exactly.
const (
	discoveryTopic = "ros_discovery_info"
	discoveryType  = "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"
	// maxDiscoveryBytes caps one ros_discovery_info sample (refused
	// inside Cyclone when larger, like any sample over MaxMessageBytes).
	maxDiscoveryBytes = 1 << 20
	// maxNodeNameBytes caps a node's namespace and name (ROS 2 names are
	// at most 255 characters).
	maxNodeNameBytes = 255
	// maxParticipants caps the participants whose nodes are remembered.
	maxParticipants = 1024
)

// ParticipantInfo is a decoded ros_discovery_info sample.
type ParticipantInfo struct {
	GUID  [16]byte   // the participant's GUID (the gid's first 16 bytes)
	Nodes []NodeInfo // its nodes
}

// NodeInfo is one node of a ParticipantInfo.
type NodeInfo struct {
	Namespace, Name string
	Writers         [][16]byte // its writers' GUIDs
	Readers         int        // how many readers it has
}

// FullName is the node's fully qualified name: /talker, /robot/camera.
func (n NodeInfo) FullName() string {
	ns := strings.TrimSuffix(n.Namespace, "/")
	if !strings.HasPrefix(ns, "/") {
		ns = "/" + ns
	}
	return strings.TrimSuffix(ns, "/") + "/" + n.Name
}

var errDiscovery = errors.New("not a ros_discovery_info sample")

// DecodeParticipantInfo decodes a serialized ros_discovery_info sample
// (encapsulation header included) with 24- or 16-byte gids. Every
// length is checked against the bytes that remain before anything is
// allocated.
func DecodeParticipantInfo(b []byte) (ParticipantInfo, error) {
	info, err := decodeParticipantInfo(b, 24)
	if err == nil {
		return info, nil
	}
	if info16, err16 := decodeParticipantInfo(b, 16); err16 == nil {
		return info16, nil
	}
	return ParticipantInfo{}, err
}

// discoveryDec reads XCDR1; alignment is relative to the byte after the
// 4-byte encapsulation header. The first error sticks.
type discoveryDec struct {
	b   []byte
	off int
	ord binary.ByteOrder
	err error
}

func (d *discoveryDec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s at offset %d", errDiscovery, fmt.Sprintf(format, args...), d.off)
	}
}

func (d *discoveryDec) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		d.fail("%d bytes needed, %d left", n, len(d.b)-d.off)
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *discoveryDec) u32() uint32 {
	if pad := (d.off - 4) % 4; pad != 0 {
		d.take(4 - pad)
	}
	p := d.take(4)
	if p == nil {
		return 0
	}
	return d.ord.Uint32(p)
}

// count reads a sequence length whose elements take at least elem bytes.
func (d *discoveryDec) count(elem int, what string) int {
	n := d.u32()
	if d.err == nil && uint64(n)*uint64(elem) > uint64(len(d.b)-d.off) {
		d.fail("%s of %d elements is longer than the sample", what, n)
		return 0
	}
	return int(n)
}

func (d *discoveryDec) str(what string) string {
	n := d.count(1, what)
	if n > maxNodeNameBytes+1 {
		d.fail("%s of %d bytes (at most %d)", what, n, maxNodeNameBytes)
		return ""
	}
	p := d.take(n)
	if len(p) > 0 && p[len(p)-1] == 0 {
		p = p[:len(p)-1]
	}
	return string(p)
}

func (d *discoveryDec) gid(size int) (g [16]byte) {
	copy(g[:], d.take(size))
	return g
}

func decodeParticipantInfo(b []byte, gidSize int) (ParticipantInfo, error) {
	var info ParticipantInfo
	if len(b) < 4 || b[0] != 0 || b[1] > 1 {
		return info, fmt.Errorf("%w: want an XCDR1 encapsulation header", errDiscovery)
	}
	d := discoveryDec{b: b, off: 4, ord: binary.LittleEndian}
	if b[1] == 0 {
		d.ord = binary.BigEndian
	}
	info.GUID = d.gid(gidSize)
	nodes := d.count(4*4, "node list") // two strings, two sequences
	if nodes > 0 {
		info.Nodes = make([]NodeInfo, 0, nodes)
	}
	for i := 0; i < nodes && d.err == nil; i++ {
		n := NodeInfo{Namespace: d.str("node namespace"), Name: d.str("node name")}
		n.Readers = d.count(gidSize, "reader gids")
		d.take(n.Readers * gidSize)
		writers := d.count(gidSize, "writer gids")
		if writers > 0 {
			n.Writers = make([][16]byte, writers)
		}
		for w := range n.Writers {
			n.Writers[w] = d.gid(gidSize)
		}
		if d.err == nil && n.Name == "" {
			d.fail("node %d has no name", i)
		}
		info.Nodes = append(info.Nodes, n)
	}
	if d.err != nil {
		return ParticipantInfo{}, d.err
	}
	if r := len(b) - d.off; r > 3 {
		return ParticipantInfo{}, fmt.Errorf("%w: %d trailing bytes (%d-byte gids)", errDiscovery, r, gidSize)
	}
	return info, nil
}

// nodeNames maps writer GUIDs to the full names of the nodes that own
// them, from the latest ros_discovery_info sample of each participant.
// Not safe for concurrent use (graph's mutex guards it).
type nodeNames struct {
	byParticipant map[[16]byte][]string // participant GUID -> its writers' GUIDs, hex
	byWriter      map[string]string     // writer GUID, hex -> node full name
}

// note replaces what info's participant said before; it reports whether
// anything changed. Past maxParticipants, new participants are ignored.
func (n *nodeNames) note(info ParticipantInfo) bool {
	if n.byParticipant == nil {
		n.byParticipant, n.byWriter = map[[16]byte][]string{}, map[string]string{}
	}
	old, known := n.byParticipant[info.GUID]
	if !known && len(n.byParticipant) >= maxParticipants {
		return false
	}
	var writers []string
	fresh := map[string]string{}
	for _, node := range info.Nodes {
		name := node.FullName()
		for _, g := range node.Writers {
			w := hex.EncodeToString(g[:])
			writers = append(writers, w)
			fresh[w] = name
		}
	}
	changed := len(old) != len(writers)
	for _, w := range old {
		if fresh[w] != n.byWriter[w] {
			changed = true
		}
		delete(n.byWriter, w)
	}
	for w, name := range fresh {
		n.byWriter[w] = name
	}
	n.byParticipant[info.GUID] = writers
	return changed
}

// node returns the name of the node owning writer guid (hex), or "".
func (n *nodeNames) node(guid string) string { return n.byWriter[guid] }
