package bag

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/edged-robotics/edged/ros/msg"
)

// realBags are the recordings in ../shared/data with what `rosbag info`
// says of them.
var realBags = []struct {
	name        string
	compression string
	chunks      int
	messages    uint64
	topics      map[string]uint64
}{
	{"g1_ep29.bag", "none", 9, 670, map[string]uint64{"/cam_high/image_raw/compressed": 221,
		"/joint_states": 221, "/joint_command": 221, "/task_state": 7}},
	{"jsk_smach.bag", "none", 1, 7, map[string]uint64{"/server_name/smach/container_status": 7}},
	{"pr2_elevator_test-button-light.bag", "bz2", 7, 312, map[string]uint64{"/wide_stereo/left/image_raw": 19,
		"/wide_stereo/left/camera_info": 292, "/view_target": 1}},
	{"pr2_pr1012_sensors_2012.bag", "bz2", 14, 6933, map[string]uint64{"/joint_states": 1325, "/tf": 3734,
		"/base_odometry/odom": 1229, "/pressure/l_gripper_motor": 326, "/pressure/r_gripper_motor": 319}},
}

// TestRealBags: the real recordings give the messages python rosbag
// reads, in its order, byte for byte, and a few values decoded from
// them match what genpy decodes.
func TestRealBags(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes every message of the sample bags with python rosbag")
	}
	for _, b := range realBags {
		t.Run(b.name, func(t *testing.T) {
			path := sharedData(t, b.name)
			r := openT(t, path)
			in := r.Info()
			if !in.Indexed || in.Messages != b.messages || in.Chunks != b.chunks || in.Compression[b.compression] != b.chunks {
				t.Errorf("info: indexed %v, %d messages, %d chunks %v", in.Indexed, in.Messages, in.Chunks, in.Compression)
			}
			for _, ti := range in.Topics {
				if ti.Messages != b.topics[ti.Topic] {
					t.Errorf("topic %s: %d messages, want %d", ti.Topic, ti.Messages, b.topics[ti.Topic])
				}
			}
			want := pyDump(t, path, true)
			sameMessages(t, b.name, goDump(t, r), want)
			i := 0
			err := r.ForEach(func(m Message) error {
				if i < len(want) {
					checkValues(t, m, want[i])
				}
				i++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}

var defs = map[*Connection]*msg.Definition{}

// checkValues decodes m with ros/msg and compares with genpy's values.
func checkValues(t *testing.T, m Message, py dumped) {
	t.Helper()
	got := map[string]any{}
	var err error
	stamp := func(h msg.Header) { got["stamp"] = []any{float64(h.Stamp.Sec), float64(h.Stamp.NSec)} }
	switch m.Conn.Type {
	case msg.TypeCompressedImage:
		var v msg.CompressedImage
		err = msg.DecodeCompressedImage(m.Data, &v)
		stamp(v.Header)
		got["format"] = v.Format
	case msg.TypeImage:
		var v msg.Image
		err = msg.DecodeImage(m.Data, &v)
		stamp(v.Header)
		got["width"], got["encoding"] = float64(v.Width), v.Encoding
	case msg.TypeJointState:
		var v msg.JointState
		err = msg.DecodeJointState(m.Data, &v)
		stamp(v.Header)
		got["name0"], got["position0"] = v.Name[0], v.Position[0]
	case msg.TypeString:
		var v msg.String
		err = msg.DecodeString(m.Data, &v)
		got["data"] = v.Data
	case msg.TypeSmachContainerStatus:
		var v msg.SmachContainerStatus
		err = msg.DecodeSmachContainerStatus(m.Data, &v)
		stamp(v.Header)
		var states []any
		for _, s := range v.ActiveStates {
			states = append(states, s)
		}
		got["active_states"] = states
	default:
		// other types: only the header stamp, when genpy found one
		if _, ok := py.Values["stamp"]; !ok {
			return
		}
		// decoded dynamically from the bag's own definition
		d, perr := defs[m.Conn], error(nil)
		if d == nil {
			d, perr = msg.Parse(m.Conn.Type, m.Conn.MessageDefinition)
			defs[m.Conn] = d
		}
		if perr != nil || !d.HasHeader() {
			t.Fatalf("%s: definition: %v", m.Conn.Type, perr)
		}
		var v *msg.Value
		if v, err = d.Decode(m.Data); err == nil {
			h, _ := v.Fields[0].(*msg.Value)
			s, _ := h.Field("stamp")
			ts, _ := s.(msg.Time)
			stamp(msg.Header{Stamp: ts})
		}
		for k := range py.Values {
			if k != "stamp" {
				got[k] = py.Values[k] // not decoded here
			}
		}
	}
	if err != nil {
		t.Fatalf("%s at %v: %v", m.Conn.Topic, m.Time, err)
	}
	if !reflect.DeepEqual(got, py.Values) {
		t.Errorf("%s at %v: decoded %v, genpy %v", m.Conn.Topic, m.Time, got, py.Values)
	}
}

// TestNoAllocsPerMessage: reading an uncompressed bag allocates a fixed
// amount per pass (the Iterator and its first chunk buffer), nothing per
// message.
func TestNoAllocsPerMessage(t *testing.T) {
	r := openT(t, sharedData(t, "g1_ep29.bag"))
	n := 0
	allocs := testing.AllocsPerRun(3, func() {
		it := r.Messages()
		for it.Next() {
			n++
		}
		it.Close()
	})
	t.Logf("%.0f allocations for %d messages", allocs, r.Info().Messages)
	if allocs > 20 {
		t.Errorf("%.0f allocations for %d messages", allocs, r.Info().Messages)
	}
}

// BenchmarkRead reads every message of the sample bags; "file" reads the
// same bytes with one ReadAt per 768 KiB as the reference floor.
func BenchmarkRead(b *testing.B) {
	paths := map[string]string{}
	for _, name := range []string{"g1_ep29.bag", "pr2_pr1012_sensors_2012.bag"} {
		paths[name] = sharedData(b, name)
	}
	paths["g1_ep29.bag(lz4)"] = recompressed(b, "g1_ep29.bag", "lz4")
	paths["g1_ep29.bag(bz2)"] = recompressed(b, "g1_ep29.bag", "bz2")
	for _, name := range []string{"g1_ep29.bag", "g1_ep29.bag(lz4)", "g1_ep29.bag(bz2)", "pr2_pr1012_sensors_2012.bag"} {
		path := paths[name]
		st, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/file", func(b *testing.B) {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			buf := make([]byte, 768<<10)
			b.SetBytes(st.Size())
			b.ReportAllocs()
			for b.Loop() {
				for off := int64(0); ; off += int64(len(buf)) {
					if _, err := f.ReadAt(buf, off); err == io.EOF {
						break
					}
				}
			}
		})
		b.Run(name+"/bag", func(b *testing.B) {
			r, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			b.SetBytes(st.Size())
			b.ReportAllocs()
			var sum int
			for b.Loop() {
				it := r.Messages()
				for it.Next() {
					sum += len(it.Message().Data)
				}
				if err := it.Err(); err != nil {
					b.Fatal(err)
				}
				it.Close()
			}
			b.ReportMetric(float64(r.Info().Messages), "msgs/op")
		})
		b.Run(name+"/open", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				r, err := Open(path)
				if err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		})
	}
}

// recompressed writes the sample bag name with `rosbag compress` (lz4
// or bz2) into a temporary directory.
func recompressed(t testing.TB, name, comp string) string {
	t.Helper()
	src := sharedData(t, name)
	if _, err := exec.LookPath("rosbag"); err != nil {
		t.Skip("rosbag not installed (run `make deps`)")
	}
	dir := t.TempDir()
	flag := map[string]string{"lz4": "--lz4", "bz2": "--bz2"}[comp]
	if out, err := exec.Command("rosbag", "compress", "-q", flag, "--output-dir="+dir, src).CombinedOutput(); err != nil {
		t.Fatalf("rosbag compress %s: %v: %s", flag, err, out)
	}
	return filepath.Join(dir, name)
}

// TestRecompressedG1: the G1 episode compressed by rosbag (lz4 frames as
// roslz4 writes them, bz2) reads back the same messages as the original.
func TestRecompressedG1(t *testing.T) {
	if testing.Short() {
		t.Skip("recompresses a sample bag with rosbag")
	}
	want := goDump(t, openT(t, sharedData(t, "g1_ep29.bag")))
	for _, comp := range []string{"lz4", "bz2"} {
		r := openT(t, recompressed(t, "g1_ep29.bag", comp))
		if in := r.Info(); in.Compression[comp] != in.Chunks || in.Chunks == 0 || !in.Indexed {
			t.Errorf("%s: info %+v", comp, in)
		}
		sameMessages(t, comp, goDump(t, r), want)
	}
}
