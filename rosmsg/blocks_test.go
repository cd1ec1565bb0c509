package rosmsg

import (
	"errors"
	"strings"
	"testing"
)

// TestSplitBlocksRepeated: the one rule for a repeated MSG: block, the
// same for ROS1 and ROS 2. rosbag2 repeats a dependency's block once per
// field that uses it, the last one without its final newline (its talker
// bag's rcl_interfaces/msg/ParameterEvent): such repeats count once. A
// repeat with other text is an error that names the type.
func TestSplitBlocksRepeated(t *testing.T) {
	sep := strings.Repeat("=", 80) + "\n"
	same := "Leaf a\nLeaf b\n" + sep + "MSG: p/Leaf\nint32 x\n" + sep + "MSG: p/Leaf\n\nint32 x  \n" + sep + "MSG: p/Leaf\nint32 x"
	other := "Leaf a\n" + sep + "MSG: p/Leaf\nint32 x\n" + sep + "MSG: p/Leaf\nint32 y\n"
	for _, tc := range []struct {
		name    string
		d       *Dialect
		text    string
		leaf    string // the block's canonical name
		wantErr bool
	}{
		{"ROS1 same text", ROS1, same, "p/Leaf", false},
		{"ROS 2 same text", ROS2, same, "p/msg/Leaf", false},
		{"ROS1 other text", ROS1, other, "p/Leaf", true},
		{"ROS 2 other text", ROS2, other, "p/msg/Leaf", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			main, blocks, err := tc.d.SplitBlocks(tc.text)
			if tc.wantErr {
				if !errors.Is(err, tc.d.Err) || !strings.Contains(err.Error(), tc.leaf+" defined twice") {
					t.Fatalf("err %v, want %v naming %s", err, tc.d.Err, tc.leaf)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(blocks) != 1 || strings.TrimSpace(blocks[tc.leaf]) != "int32 x" || main != "Leaf a\nLeaf b\n" {
				t.Fatalf("main %q, blocks %q", main, blocks)
			}
		})
	}
}
