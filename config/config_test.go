package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/fielderr"
)

const designExample = `
robot_id: arm-01
data_dir: /var/lib/edged
ros:
  master_uri: ""
  node_name: /edged
cameras:
  - topic: /camera/color/image_raw/compressed
joints:
  - topic: /joint_states
fsm:
  - topic: /task/state
    type: string
    idle_states: [IDLE]
sheet:
  interval: 0.5s
  tile_width: 224
  columns: 5
  rows: 4
  quality: 84
uplink:
  broker: ""
  topic_prefix: edged
  max_payload: 128KiB
  outbox_bytes: 2GiB
http:
  listen: 127.0.0.1:9090
`

func TestDesignExampleIsValid(t *testing.T) {
	c, err := Parse([]byte(designExample))
	if err != nil {
		t.Fatalf("the DESIGN.md example must be valid: %v", err)
	}
	if c.Sheet.Interval.D() != 500*time.Millisecond || c.Uplink.MaxPayload != 128<<10 || c.Uplink.OutboxBytes != 2<<30 {
		t.Fatalf("units parsed wrong: %+v %+v", c.Sheet, c.Uplink)
	}
	if c.Uplink.ClientID != "edged-arm-01" || c.Ring.MaxAge != Default().Ring.MaxAge {
		t.Fatalf("defaults not applied: %+v", c)
	}
}

func TestMinimalGetsDefaults(t *testing.T) {
	c, err := Parse([]byte("robot_id: r1\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := Sheet{Preset: "published", Interval: Duration(500 * time.Millisecond), TileWidth: 224, Columns: 5, Rows: 4, Quality: 84,
		Grace: Duration(time.Second)}
	if c.Sheet != want {
		t.Fatalf("sheet defaults: got %+v want %+v", c.Sheet, want)
	}
	if c.DataDir != DefaultDataDir || c.ROS.NodeName != "edged" || c.HTTP.Listen != DefaultListen || c.Replay.MaxGap != DefaultMaxGap {
		t.Fatalf("defaults: %+v", c)
	}
}

// sheet.preset low-cost sets the tile width, unless tile_width says
// otherwise.
func TestSheetPreset(t *testing.T) {
	cases := []struct {
		yaml  string
		width int
	}{
		{"robot_id: r\n", DefaultTileWidth},
		{"robot_id: r\nsheet: {preset: published}\n", DefaultTileWidth},
		{"robot_id: r\nsheet: {preset: low-cost}\n", 153},
		{"robot_id: r\nsheet: {preset: low-cost, tile_width: 160}\n", 160},
	}
	for _, tc := range cases {
		c, err := Parse([]byte(tc.yaml))
		if err != nil || c.Sheet.TileWidth != tc.width {
			t.Errorf("%q: tile_width %d, %v; want %d", tc.yaml, c.Sheet.TileWidth, err, tc.width)
		}
	}
}

// Relative and private topic names are ROS names like global ones
// (resolved in the node's namespace when edged subscribes).
func TestRelativeAndPrivateTopics(t *testing.T) {
	c, err := Parse([]byte("robot_id: r\nros: {node_name: edged}\ncameras: [{topic: camera/image}]\njoints: [{topic: ~joints}]\nfsm: [{topic: task/state, type: string}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Cameras[0].Topic != "camera/image" {
		t.Fatalf("topic %q", c.Cameras[0].Topic)
	}
}

func TestValidationNamesTheField(t *testing.T) {
	cases := []struct {
		name, yaml, want string
	}{
		{"tile width", "robot_id: r\nsheet: {tile_width: -1}\n", "sheet.tile_width: must be > 0"},
		{"explicit zero", "robot_id: r\nsheet: {tile_width: 0}\n", "sheet.tile_width: must be > 0"},
		{"quality", "robot_id: r\nsheet: {quality: 101}\n", "sheet.quality: must be in 1..100"},
		{"preset", "robot_id: r\nsheet: {preset: cheap}\n", "sheet.preset: must be published or low-cost"},
		{"camera topic", "robot_id: r\ncameras: [{topic: 'cam image'}]\n", `cameras[0].topic: "cam image" is not a ROS graph name`},
		{"camera topic digit", "robot_id: r\ncameras: [{topic: /cam/0}]\n", `cameras[0].topic: "/cam/0" is not a ROS graph name`},
		{"listen", "robot_id: r\nhttp: {listen: nope}\n", "http.listen: must be host:port"},
		{"pprof without listen", "robot_id: r\nhttp: {listen: \"off\", pprof: true}\n", "http.pprof: needs http.listen"},
		{"ring age", "robot_id: r\nring: {max_age: 100ms}\n", "ring.max_age: must be >="},
		{"sheet pixel budget", "robot_id: r\nsheet: {tile_width: 4096, columns: 20, rows: 20}\n", "sheet.columns: a sheet of 20 columns"},
		{"sheet pixels", "robot_id: r\nsheet: {tile_width: 1024, columns: 8, rows: 8}\n", "sheet.tile_width: a sheet of 8 x 8 tiles"},
		{"sheet 30x30", "robot_id: r\nsheet: {columns: 30, rows: 30}\n", "sheet.rows: columns x rows must be <= 400"},
		{"sheet interval", "robot_id: r\nsheet: {interval: 1ms}\n", "sheet.interval: must be >= 10ms"},
		{"msg dir empty", "robot_id: r\nros2: {msg_dirs: ['']}\n", "ros2.msg_dirs: entry 0 is empty"},
		// a QoS key is a topic: one rule for its name (it took any string)
		{"qos topic", "robot_id: r\nros2: {qos: {'cam image': sensor_data}}\n", `ros2.qos: "cam image" is not a ROS graph name`},
		{"msg dir twice", "robot_id: r\nros2: {msg_dirs: [/opt/msgs, /opt/msgs/]}\n", "ros2.msg_dirs: /opt/msgs/ is listed twice"},
		{"replay gap zero", "robot_id: r\nreplay: {max_gap: 0s}\n", "replay.max_gap: must be in 1s..24h0m0s, got 0s"},
		{"replay gap long", "robot_id: r\nreplay: {max_gap: 25h}\n", "replay.max_gap: must be in 1s..24h0m0s"},
		{"clips pre zero", "robot_id: r\nclips: {pre: 0s}\n", "clips.pre: must be in (0, 10m0s]"},
		{"clips post negative", "robot_id: r\nclips: {post: -1s}\n", "clips.post: must be in [0, 10m0s]"},
		{"clips budget", "robot_id: r\nclips: {max_bytes: 1KiB}\n", "clips.max_bytes: must be >= 1MiB"},
		{"clips quality", "robot_id: r\nclips: {quality: 0}\n", "clips.quality: must be 1..100"},
		{"clips interval", "robot_id: r\nclips: {min_interval: -1s}\n", "clips.min_interval: must be >= 0"},
		{"clips goal failure without actionlib", "robot_id: r\nclips: {enabled: true, on_goal_failure: true}\n", "clips.on_goal_failure: no fsm source has type actionlib"},
		{"clips empty state", "robot_id: r\nclips: {on_states: ['']}\n", "clips.on_states: state 0 is empty"},
		{"clips window", "robot_id: r\nclips: {enabled: true, pre: 28s, post: 5s}\n", "clips.pre: pre + post (33s) must be <= ring.max_age (30s)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"unknown key", "robot_id: r\nsheet: {tile_widht: 3}\n", "field tile_widht not found"},
		{"bad duration", "robot_id: r\nsheet: {interval: fast}\n", "not a duration"},
		{"bad size", "robot_id: r\nuplink: {max_payload: lots}\n", "not a size"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestSizes(t *testing.T) {
	cases := []struct {
		in   string
		want Size
		ok   bool
	}{
		{"128KiB", 128 << 10, true}, {"2GiB", 2 << 30, true}, {"1.5MiB", 3 << 19, true},
		{"1000", 1000, true}, {"64MB", 64e6, true}, {"1kB", 1000, true}, {"-1", 0, false},
		{"", 0, false}, {"KiB", 0, false}, {"1e300TiB", 0, false},
	}
	for _, tc := range cases {
		got, err := ParseSize(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
	if s := Size(2 << 30).String(); s != "2GiB" {
		t.Errorf("String: %s", s)
	}
}

func TestEffectiveConfigRoundTrips(t *testing.T) {
	c, err := Parse([]byte(designExample))
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	c2, err := Parse(b)
	if err != nil {
		t.Fatalf("effective config does not parse back: %v\n%s", err, b)
	}
	b2, _ := c2.Marshal()
	if string(b) != string(b2) {
		t.Fatalf("round trip changed the config:\n%s\n---\n%s", b, b2)
	}
}

func TestSampleConfigIsValid(t *testing.T) {
	path := filepath.Join("..", "systemd", "edged.yaml")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no sample config at %s yet", path)
	}
	if _, err := Load(path); err != nil {
		t.Fatalf("systemd/edged.yaml must pass edged config check: %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(designExample))
	f.Add([]byte("robot_id: r\nsheet: {interval: 1s, tile_width: 10}\n"))
	f.Add([]byte("robot_id: [1, 2]\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := Parse(b)
		if err == nil && c == nil {
			t.Fatal("no config and no error")
		}
	})
}

// TestRenameFields: a flag's field is renamed in config's own errors
// and in the components' (daemon.Check joins those: the fsm's rule of
// fsm[0].type, the uplink's of uplink.broker), wherever they sit in
// the tree.
func TestRenameFields(t *testing.T) {
	names := map[string]string{"data_dir": "--out", "fsm[0]": "--fsm", "fsm[0].type": "--fsm-type", "uplink.broker": "--broker"}
	_, own := Parse([]byte("robot_id: r\ndata_dir: x\nsheet: {quality: 0}\n"))
	components := errors.Join(fielderr.New("uplink.broker", "needs a port"),
		fmt.Errorf("wrapped: %w", errors.Join(fielderr.New("fsm[0].type", "must be string"), fielderr.New("fsm[0].topic", "required"))))
	for _, tc := range []struct {
		name string
		err  error
		want []string
	}{
		{"config's", own, []string{"--out: must be", "sheet.quality: must be"}},
		{"components'", components, []string{"--broker: needs a port", "--fsm-type: must be", "--fsm.topic: required"}},
		{"no field error", io.EOF, []string{"EOF"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := RenameFields(tc.err, names)
			for _, want := range tc.want {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("renamed error lacks %q:\n%v", want, err)
				}
			}
		})
	}
}

func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	good, empty := filepath.Join(dir, "pw"), filepath.Join(dir, "empty")
	os.WriteFile(good, []byte("x"), 0o600)
	os.WriteFile(empty, nil, 0o600)
	c := Default()
	c.Uplink.PasswordFile, c.Uplink.CAFile = good, good
	if err := c.CheckFiles(); err != nil {
		t.Fatalf("readable files refused: %v", err)
	}
	c.ROS2.MsgDirs = []string{dir}
	if err := c.CheckFiles(); err != nil {
		t.Fatalf("a readable ros2.msg_dirs directory refused: %v", err)
	}
	c.Uplink.PasswordFile, c.Uplink.CAFile, c.Uplink.CertFile = filepath.Join(dir, "nope"), dir, empty
	c.ROS2.MsgDirs = []string{dir, good, filepath.Join(dir, "nodir")}
	err := c.CheckFiles()
	for _, want := range []string{"uplink.password_file: open", "uplink.ca_file: " + dir + " is not a regular file", "uplink.cert_file: " + empty + " is empty",
		"ros2.msg_dirs: " + good + " is not a directory", "ros2.msg_dirs: open " + filepath.Join(dir, "nodir")} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckFiles = %v, want %q", err, want)
		}
	}
}

// ResolveTopics resolves ros2.qos's keys like every other topic: a
// relative key (cam/compressed, written beside a relative camera topic)
// met the resolved topic /ns/cam/compressed nowhere and the override was
// silently ignored. The original config's map is left alone.
func TestResolveTopicsQoSKeys(t *testing.T) {
	c, err := Parse([]byte("robot_id: r\ncameras: [{topic: cam/compressed}]\nros2: {qos: {cam/compressed: sensor_data, /clock: latched}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := *c
	r.Cameras = append([]CameraTopic(nil), c.Cameras...)
	if err := r.ResolveTopics(func(s string) string {
		if strings.HasPrefix(s, "/") {
			return s
		}
		return "/ns/" + s
	}); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"/ns/cam/compressed": "sensor_data", "/clock": "latched"}
	if fmt.Sprint(r.ROS2.QoS) != fmt.Sprint(want) || r.Cameras[0].Topic != "/ns/cam/compressed" {
		t.Errorf("resolved qos %v, camera %s; want %v", r.ROS2.QoS, r.Cameras[0].Topic, want)
	}
	if _, ok := c.ROS2.QoS["cam/compressed"]; !ok {
		t.Errorf("the original config's qos changed: %v", c.ROS2.QoS)
	}
}
