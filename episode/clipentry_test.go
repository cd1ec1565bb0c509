package episode

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/uplink/wire"
)

// TestClipNameRefusesPaths: a name with a path, a traversal or a kind
// ClipName would have rewritten is not a clip's (names come from
// peers: the wire, a URL).
func TestClipNameRefusesPaths(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)
	for _, name := range []string{
		"clip-20260102T030405.678Z-../../etc/passwd.mcap",
		"clip-20260102T030405.678Z-a/b.mcap",
		"clip-20260102T030405.678Z-a b.mcap",
		"clip-20260102T030405.678Z-a.b.mcap",
		"clip-20260102T030405.678Z-" + strings.Repeat("k", 200) + ".mcap",
		"../" + ClipName(at, "state"),
	} {
		if IsClipName(name) {
			t.Errorf("IsClipName(%q) = true", name)
		}
	}
	if !IsClipName(ClipName(at, "state")) {
		t.Error("ClipName's own name refused")
	}
}

func TestCheckClipEntry(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)
	good := ClipEntry{Name: ClipName(at, "state"), Kind: "state", At: at.Add(123456), Bytes: 10,
		SHA256: strings.Repeat("ab", 32), Where: ClipOnRobot}
	for _, tc := range []struct {
		name string
		edit func(*ClipEntry)
		ok   bool
	}{
		{"on the robot", func(*ClipEntry) {}, true},
		{"uploaded", func(c *ClipEntry) { c.Where = "s3://bucket/prefix/x.mcap" }, true},
		{"size and checksum unstated", func(c *ClipEntry) { c.Bytes, c.SHA256 = 0, "" }, true},
		{"traversal", func(c *ClipEntry) { c.Name = "clip-20260102T030405.678Z-../x.mcap" }, false},
		{"another kind", func(c *ClipEntry) { c.Kind = "goal" }, false},
		{"another time", func(c *ClipEntry) { c.At = at.Add(time.Second) }, false},
		{"negative size", func(c *ClipEntry) { c.Bytes = -1 }, false},
		{"bad checksum", func(c *ClipEntry) { c.SHA256 = strings.Repeat("AB", 32) }, false},
		{"http", func(c *ClipEntry) { c.Where = "http://x/y" }, false},
		{"bare s3", func(c *ClipEntry) { c.Where = "s3://" }, false},
		{"control char", func(c *ClipEntry) { c.Where = "s3://b/\n" }, false},
		{"huge where", func(c *ClipEntry) { c.Where = "s3://b/" + strings.Repeat("x", 2000) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			tc.edit(&c)
			got, err := CheckClipEntry(c)
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok %v", err, tc.ok)
			}
			if err == nil && !got.At.Equal(at) {
				t.Errorf("at %v, want the name's %v", got.At, at)
			}
		})
	}
}

// TestMergeClip: announcements are idempotent, an upload's URL
// replaces the robot, never the reverse, another content conflicts, and
// a list is capped.
func TestMergeClip(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	robot := ClipEntry{Name: ClipName(at, "state"), Kind: "state", At: at, Bytes: 10, SHA256: strings.Repeat("0", 64), Where: ClipOnRobot}
	s3 := robot
	s3.Where, s3.Bytes, s3.SHA256 = "s3://b/x.mcap", 0, ""
	uploaded := robot
	uploaded.Where = s3.Where
	other := ClipEntry{Name: ClipName(at.Add(-time.Second), "goal"), Kind: "goal", At: at.Add(-time.Second), Where: ClipOnRobot}
	conflict := robot
	conflict.Bytes = 11
	for _, tc := range []struct {
		name    string
		steps   []ClipEntry
		want    []ClipEntry
		changes int
		err     error
	}{
		{"new", []ClipEntry{robot}, []ClipEntry{robot}, 1, nil},
		{"again", []ClipEntry{robot, robot}, []ClipEntry{robot}, 1, nil},
		{"uploaded", []ClipEntry{robot, s3, s3}, []ClipEntry{uploaded}, 2, nil},
		{"out of order", []ClipEntry{s3, robot}, []ClipEntry{uploaded}, 2, nil},
		{"name order", []ClipEntry{robot, other}, []ClipEntry{other, robot}, 2, nil},
		{"conflict", []ClipEntry{robot, conflict}, []ClipEntry{robot}, 1, ErrClipConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var clips []ClipEntry
			var changes int
			var err error
			for _, c := range tc.steps {
				var changed bool
				if clips, changed, err = MergeClip(clips, c); changed {
					changes++
				}
			}
			if !errors.Is(err, tc.err) || changes != tc.changes || !reflect.DeepEqual(clips, tc.want) {
				t.Errorf("clips %+v, %d changes, %v; want %+v, %d, %v", clips, changes, err, tc.want, tc.changes, tc.err)
			}
		})
	}
	var clips []ClipEntry
	for i := range MaxClips + 1 {
		var err error
		c := ClipEntry{Kind: "state", At: at.Add(time.Duration(i) * time.Millisecond), Where: ClipOnRobot}
		c.Name = ClipName(c.At, c.Kind)
		if clips, _, err = MergeClip(clips, c); (err != nil) != (i == MaxClips) {
			t.Fatalf("clip %d: %v", i, err)
		}
	}
	if len(clips) != MaxClips {
		t.Errorf("%d clips held, cap %d", len(clips), MaxClips)
	}
}

// TestClipWireRoundTrip: every field of a clip announcement travels.
func TestClipWireRoundTrip(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)
	c := ClipEntry{Name: ClipName(at, "state"), Kind: "state", At: at, Bytes: 10, SHA256: strings.Repeat("a", 64), Where: "s3://b/k"}
	mustFilled(t, reflect.ValueOf(c), nil)
	w := ClipToWire(c)
	mustFilled(t, reflect.ValueOf(*w), nil)
	b, err := w.MarshalMsg(nil)
	if err != nil {
		t.Fatal(err)
	}
	var back wire.Clip
	if _, err := back.UnmarshalMsg(b); err != nil {
		t.Fatal(err)
	}
	if got := ClipFromWire(&back); !reflect.DeepEqual(got, c) {
		t.Errorf("clip round trip:\n got %+v\nwant %+v", got, c)
	}
}
