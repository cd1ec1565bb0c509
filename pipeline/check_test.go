package pipeline

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	epstore "github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink"
	"github.com/edged-robotics/edged/uplink/mqttconn"
)

// withRobot adds robot_id: r to a config that names none.
func withRobot(yaml string) string {
	if strings.HasPrefix(yaml, "robot_id:") {
		return yaml
	}
	return "robot_id: r\n" + yaml
}

// TestConfigCheckAgreesWithRun: for every setting whose rule lived in
// two places, the value `edged config check` (Check) accepts is the
// value the component edged run builds from it accepts, and both
// refusals name the config key. They disagreed: a 30x30 sheet passed
// the check and built no sheets; config wanted an outbox of 16MiB and
// the uplink 1MiB (the uplink's rule, whose eviction its tests show
// working at 1MiB, is the one now); topic prefixes and bandwidths had
// two rule sets; a ring of 1000 bytes passed ringbuf (whose errors
// named ringbuf.max_bytes); a recording topic without FSM sources
// passed the check but not fsm.New; a broker without a port, a
// robot_id with ':' and a 1ms max_duration passed one side only; the
// check refused an https master the node takes; cam and /cam, one
// topic once resolved, passed the check and failed capture.
func TestConfigCheckAgreesWithRun(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       string // "" accepted; else what both errors contain
	}{
		{"defaults", "", ""},
		{"sheet 30x30", "sheet: {columns: 30, rows: 30}", "sheet.rows: columns x rows must be <= 400"},
		{"sheet 20x20", "sheet: {columns: 20, rows: 20, tile_width: 64}", ""},
		{"ring 1000 bytes", "ring: {max_bytes: 1000}", "ring.max_bytes: must be >= 1MiB"},
		{"ring 0 bytes", "ring: {max_bytes: 0}", "ring.max_bytes:"},
		{"ring 1MiB", "ring: {max_bytes: 1MiB}", ""},
		{"queue bytes under a message", "ros: {queue_bytes: 1MiB}", "ros.queue_bytes: must be >= ros.max_message"},
		{"state queue bytes", "ros: {state_queue_bytes: 1KiB, max_state_message: 2KiB}", "ros.state_queue_bytes: must be >= ros.max_state_message"},
		{"state message", "ros: {max_state_message: 10}", "ros.max_state_message: must be >= 1KiB"},
		{"queue size", "ros: {queue_size: 20000}", "ros.queue_size: must be in 1..10000"},
		{"stamp skew", "capture: {max_stamp_skew: -1s}", "capture.max_stamp_skew: must be >= 0"},
		{"outbox 512KiB", "uplink: {outbox_bytes: 512KiB}", "uplink.outbox_bytes: must be >= 1MiB"},
		{"outbox 8MiB", "uplink: {outbox_bytes: 8MiB}", ""},
		{"topic prefix with a space", "uplink: {topic_prefix: a b}", "uplink.topic_prefix:"},
		{"topic prefix with an empty level", "uplink: {topic_prefix: a//b}", "uplink.topic_prefix:"},
		{"topic prefix wildcard", "uplink: {topic_prefix: a/+}", "uplink.topic_prefix:"},
		{"topic prefix levels", "uplink: {topic_prefix: fleet/eu-1}", ""},
		{"bandwidth 100", "uplink: {bandwidth: 100}", "uplink.bandwidth: must be 0 (unlimited) or >= 1KiB"},
		{"bandwidth 1KiB", "uplink: {bandwidth: 1KiB}", ""},
		{"max_payload 100", "uplink: {max_payload: 100}", "uplink.max_payload: must be >= 1024"},
		{"max_payload 300MiB", "uplink: {max_payload: 300MiB}", "uplink.max_payload: must be <= 256MiB"},
		{"max_payload 1KiB", "uplink: {max_payload: 1KiB}", ""},
		{"cert without key", "uplink: {cert_file: /etc/hostname}", "uplink.key_file: required with uplink.cert_file"},
		{"recording topic alone", "episode: {recording_topic: /rec}", ""},
		{"fsm field path", "fsm: [{topic: /s, type: field, field: 'a..b'}]", "fsm[0].field:"},
		// One owner each since: the broker address is mqttconn's (the
		// uplink took a broker without a port, config refused it)
		{"broker without port", "uplink: {broker: 'tcp://b'}", "uplink.broker: needs a port"},
		{"broker scheme", "uplink: {broker: 'http://b:1'}", "uplink.broker: scheme must be"},
		{"broker credentials", "uplink: {broker: 'tcp://u:hunter2@b:1883'}", "uplink.password_file"},
		{"broker", "uplink: {broker: 'mqtts://b:8883'}", ""},
		// fsm's: the sources' types and fields
		{"fsm type", "fsm: [{topic: /s, type: magic}]", "fsm[0].type: must be string, smach, actionlib or field"},
		{"fsm field missing", "fsm: [{topic: /s, type: field}]", "fsm[0].field: required"},
		{"fsm field for string", "fsm: [{topic: /s, field: a}]", "fsm[0].field: only allowed with type field"},
		// capture's: one role per topic, on the names run subscribes
		// (config compared names as written: cam and /cam passed)
		{"topic in two roles", "cameras: [{topic: /a}]\njoints: [{topic: /a}]", "joints[0].topic: topic /a is already used by cameras[0].topic"},
		{"relative and global one topic", "cameras: [{topic: cam}, {topic: /cam}]", "cameras[1].topic: topic /cam is already used by cameras[0].topic"},
		{"fsm and recording topic", "fsm: [{topic: /s}]\nepisode: {recording_topic: /s}", "episode.recording_topic: topic /s is already used by fsm[0].topic"},
		{"fsm topic twice", "fsm: [{topic: /s}, {topic: s}]", "fsm[1].topic: topic /s is already used by fsm[0].topic"},
		// ros.CheckName: the one rule of a name
		{"topic syntax", "cameras: [{topic: /cam/0}]", `cameras[0].topic: "/cam/0" is not a ROS graph name`},
		// ros's: the master's URI and the node's name (config refused
		// https, which the node takes)
		{"https master", "ros: {master_uri: 'https://m:11311'}", ""},
		{"master uri", "ros: {master_uri: 'localhost:11311'}", "ros.master_uri:"},
		{"private node name", "ros: {node_name: '~edged'}", "ros.node_name: must be a global or relative name"},
		// fsm's episode.max_duration (fsm took 1ms, config wanted 1s)
		{"max_duration 1ms", "episode: {max_duration: 1ms}\nfsm: [{topic: /s}]", "episode.max_duration: must be >= 1s"},
		{"max_duration 1s", "episode: {max_duration: 1s}\nfsm: [{topic: /s}]", ""},
		// the uplink's robot_id, the stricter rule (the uplink took ':')
		{"robot id with a colon", "robot_id: a:b", "robot_id: must use only letters"},
		{"robot id ..", "robot_id: '..'", "robot_id: must use only letters"},
		{"robot id too long", "robot_id: " + strings.Repeat("r", 65), "robot_id: must be at most 64 characters"},
		{"robot id like an episode id", "robot_id: arm-20260101T000000.000Z", "robot_id: must not contain an episode time"},
		{"robot id", "robot_id: arm-01.eu_2", ""},
		{"resend_after too short", "uplink: {resend_after: 500ms}", "uplink.resend_after: must be >= 1s"},
		{"resend_after", "uplink: {resend_after: 90s}", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte("data_dir: " + t.TempDir() + "\n" + withRobot(tc.yaml) + "\n"))
			if err == nil {
				err = Check(cfg)
			}
			runErr := runAccepts(t, cfg)
			for what, e := range map[string]error{"config check": err, "run": runErr} {
				if tc.want == "" && e != nil {
					t.Errorf("%s refuses: %v", what, e)
				}
				if tc.want != "" && (e == nil || !strings.Contains(e.Error(), tc.want)) {
					t.Errorf("%s: got %v, want an error with %q", what, e, tc.want)
				}
			}
		})
	}
}

// TestCheckMaxDurationOfSessions: without an fsm stage, sessions are
// cut at episode.max_duration, so Check applies fsm's rule of it then
// too (it is the one gate: sessions have no constructor of their own).
func TestCheckMaxDurationOfSessions(t *testing.T) {
	for _, tc := range []struct{ d, want string }{{"1ms", "episode.max_duration: must be >= 1s"}, {"0s", "episode.max_duration: must be >= 1s"}, {"1s", ""}} {
		cfg, err := config.Parse([]byte("robot_id: r\ndata_dir: " + t.TempDir() + "\nepisode: {max_duration: " + tc.d + "}\n"))
		if err != nil {
			t.Fatal(err)
		}
		err = Check(cfg)
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("max_duration %s: got %v, want %q", tc.d, err, tc.want)
		}
	}
}

// runAccepts builds, from cfg, each component edged run builds (as
// run does, past Check): the ROS node, the sheet builder, a camera's
// ring, the uplink, the fsm stage and capture's config for the
// resolved topics. It returns the first refusal.
func runAccepts(t *testing.T, cfg *config.Config) error {
	t.Helper()
	rc := ROSNodeConfig(cfg, ros.Args{})
	rc.Host, rc.Logger = "127.0.0.1", slog.New(slog.NewTextHandler(io.Discard, nil))
	node, err := ros.NewNode(context.Background(), rc) // listens on loopback; dials nothing yet
	if err != nil {
		return err
	}
	node.Close()
	resolved, err := ResolveTopics(cfg, ros.Args{})
	if err != nil {
		return err
	}
	p := &Pipeline{cfg: resolved}
	cams, joints := ConfiguredTopics(&resolved)
	if len(cams) == 0 {
		cams = []string{"/cam"} // as discovery would fill it
	}
	topo, err := p.NewTopology(&resolved, &Topology{}, cams, joints)
	if err != nil {
		return err
	}
	defer topo.closeRings()
	b, err := sheet.NewBuilder(sheet.BuilderConfig{Camera: cams[0], Recipe: resolved.Sheet.Recipe(), Start: time.Unix(1, 0),
		Source: topo.cams[0].ring, Emit: func(*sheet.Sheet) error { return nil }})
	if err != nil {
		return err
	}
	b.Close()
	if err := uplinkAccepts(&resolved); err != nil {
		return err
	}
	if p.fsmCfg = fsmConfig(&resolved); p.fsmCfg.Wanted() {
		st, err := epstore.Open(filepath.Join(cfg.DataDir, episode.EpisodesDir), epstore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		if p.machine, err = fsm.New(p.fsmCfg, st); err != nil {
			return err
		}
		defer p.machine.Close()
	}
	ccfg, _ := p.CaptureSetup(topo)
	return ccfg.Validate()
}

// uplinkAccepts builds the uplink as run does, and connects its
// options as the publisher would (the broker address's rule).
func uplinkAccepts(cfg *config.Config) error {
	ucfg, err := uplinkConfig(cfg, "")
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	up, err := uplink.New(ucfg, uplink.Options{Logger: log})
	if err != nil {
		return err
	}
	up.Close()
	if ucfg.Broker != "" {
		if _, err := mqttconn.ClientOptions(ucfg.Broker, ucfg.ClientID, ucfg.Auth, false); err != nil {
			return err
		}
	}
	return nil
}
