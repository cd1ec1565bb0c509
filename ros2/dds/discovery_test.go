package dds

import (
	"encoding/binary"
	"errors"
	"testing"
)

// discoverySample serializes a ParticipantEntitiesInfo (little-endian
// XCDR1) with gidSize-byte gids, as a ROS 2 participant writes it.
func discoverySample(gidSize int, participant byte, nodes ...NodeInfo) []byte {
	b := []byte{0, 1, 0, 0}
	pad := func() {
		for (len(b)-4)%4 != 0 {
			b = append(b, 0)
		}
	}
	u32 := func(v int) { pad(); b = binary.LittleEndian.AppendUint32(b, uint32(v)) }
	gid := func(g [16]byte) { b = append(b, g[:]...); b = append(b, make([]byte, gidSize-16)...) }
	str := func(s string) { u32(len(s) + 1); b = append(b, s...); b = append(b, 0) }
	gid([16]byte{participant, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 0, 1, 0xc1})
	u32(len(nodes))
	for _, n := range nodes {
		str(n.Namespace)
		str(n.Name)
		u32(n.Readers)
		for i := 0; i < n.Readers; i++ {
			gid([16]byte{participant, 0xee})
		}
		u32(len(n.Writers))
		for _, w := range n.Writers {
			gid(w)
		}
	}
	pad()
	return b
}

func writerGUID(p, w byte) [16]byte {
	return [16]byte{p, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0, 0, w, 0x03}
}

func TestDecodeParticipantInfo(t *testing.T) {
	talker := NodeInfo{Namespace: "/", Name: "talker", Writers: [][16]byte{writerGUID(7, 1), writerGUID(7, 2)}, Readers: 2}
	cam := NodeInfo{Namespace: "/robot", Name: "camera", Writers: [][16]byte{writerGUID(7, 3)}}
	for _, size := range []int{24, 16} {
		for _, nodes := range [][]NodeInfo{nil, {talker}, {talker, cam}} {
			b := discoverySample(size, 7, nodes...)
			info, err := DecodeParticipantInfo(b)
			if err != nil {
				t.Fatalf("gid %d, %d nodes: %v", size, len(nodes), err)
			}
			if info.GUID[0] != 7 || info.GUID[15] != 0xc1 || len(info.Nodes) != len(nodes) {
				t.Fatalf("gid %d: %+v", size, info)
			}
			for i, n := range info.Nodes {
				if n.FullName() != nodes[i].FullName() || n.Readers != nodes[i].Readers || len(n.Writers) != len(nodes[i].Writers) ||
					(len(n.Writers) > 0 && n.Writers[0] != nodes[i].Writers[0]) {
					t.Errorf("gid %d: node %+v, want %+v", size, n, nodes[i])
				}
			}
			// every truncation fails cleanly (or, cut right after a 24-byte
			// gid, reads as a 16-byte-gid sample with no nodes: the
			// layouts are told apart only by what parses)
			for cut := 0; cut < len(b)-3; cut++ {
				if got, err := DecodeParticipantInfo(b[:cut]); err == nil && len(got.Nodes) > 0 {
					t.Errorf("gid %d: %d of %d bytes decoded", size, cut, len(b))
				} else if err != nil && !errors.Is(err, errDiscovery) {
					t.Errorf("error %v does not wrap errDiscovery", err)
				}
			}
		}
	}
	// a huge node count is refused before allocating
	b := discoverySample(24, 7)
	binary.LittleEndian.PutUint32(b[len(b)-4:], 1<<30)
	if _, err := DecodeParticipantInfo(b); err == nil {
		t.Error("a node count of 2^30 in a short sample decoded")
	}
}

func TestFullName(t *testing.T) {
	for _, c := range []struct{ ns, name, want string }{
		{"/", "talker", "/talker"}, {"", "talker", "/talker"}, {"/robot", "cam", "/robot/cam"}, {"/robot/", "cam", "/robot/cam"},
	} {
		if got := (NodeInfo{Namespace: c.ns, Name: c.name}).FullName(); got != c.want {
			t.Errorf("%q %q: %q, want %q", c.ns, c.name, got, c.want)
		}
	}
}

func TestNodeNames(t *testing.T) {
	var n nodeNames
	w1, w2 := writerGUID(7, 1), writerGUID(7, 2)
	hex1, hex2 := "070102030405060708090a0b00000103", "070102030405060708090a0b00000203"
	info := ParticipantInfo{GUID: [16]byte{7}, Nodes: []NodeInfo{{Namespace: "/", Name: "a", Writers: [][16]byte{w1, w2}}}}
	if !n.note(info) || n.node(hex1) != "/a" || n.node(hex2) != "/a" {
		t.Fatalf("after note: %+v", n)
	}
	if n.note(info) {
		t.Error("the same info again is a change")
	}
	// the participant's node now owns only w2, under another name
	info.Nodes = []NodeInfo{{Namespace: "/x", Name: "b", Writers: [][16]byte{w2}}}
	if !n.note(info) || n.node(hex1) != "" || n.node(hex2) != "/x/b" {
		t.Errorf("after replace: %q %q", n.node(hex1), n.node(hex2))
	}
	// bounded
	for i := 0; i < maxParticipants+10; i++ {
		n.note(ParticipantInfo{GUID: [16]byte{byte(i), byte(i >> 8), 1}})
	}
	if len(n.byParticipant) > maxParticipants {
		t.Errorf("%d participants remembered", len(n.byParticipant))
	}
}

func FuzzDecodeParticipantInfo(f *testing.F) {
	node := NodeInfo{Namespace: "/ns", Name: "node", Writers: [][16]byte{writerGUID(1, 1)}, Readers: 1}
	f.Add(discoverySample(24, 1, node))
	f.Add(discoverySample(16, 1, node, node))
	f.Add(discoverySample(24, 1))
	f.Add([]byte{0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		info, err := DecodeParticipantInfo(b)
		if err != nil {
			return
		}
		for _, n := range info.Nodes {
			if len(n.Namespace) > maxNodeNameBytes || len(n.Name) > maxNodeNameBytes || n.Name == "" {
				t.Fatalf("node %+v", n)
			}
			if len(n.Writers)*16 > len(b) {
				t.Fatalf("%d writers from %d bytes", len(n.Writers), len(b))
			}
		}
	})
}
