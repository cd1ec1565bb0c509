package pipeline

import (
	"testing"

	"github.com/edged-robotics/edged/config"
)

// TestCheckProblemsNameKeys: every problem Check reports, the
// components' own rules included (ring, ros, capture, fsm, uplink and
// its broker and TLS files, the sheet recipe, robot_id), is a
// *fielderr.Error naming a key of the config file (config.IsKey); ros,
// ringbuf and recipe errors used to bypass it (issue 22).
func TestCheckProblemsNameKeys(t *testing.T) {
	for _, yaml := range []string{
		"ring: {max_bytes: 1000}",
		"ros: {queue_bytes: 1MiB, queue_size: 20000, max_state_message: 10}",
		"ros: {master_uri: 'localhost:11311', node_name: '~edged'}",
		"capture: {max_stamp_skew: -1s}",
		"cameras: [{topic: /a}]\njoints: [{topic: /a}]",
		"fsm: [{topic: /s, type: magic}, {topic: /t, type: field}]",
		"episode: {max_duration: 1ms}\nfsm: [{topic: /s}]",
		"uplink: {outbox_bytes: 512KiB, bandwidth: 100, max_payload: 100, topic_prefix: a/+, resend_after: 500ms}",
		"uplink: {broker: 'tcp://b', cert_file: /etc/hostname}",
		"sheet: {columns: 30, rows: 30}",
		"robot_id: a:b",
	} {
		t.Run(yaml, func(t *testing.T) {
			cfg, err := config.Parse([]byte("data_dir: " + t.TempDir() + "\n" + withRobot(yaml) + "\n"))
			if err == nil {
				err = Check(cfg)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			for _, p := range config.ProblemsWithoutKey(err) {
				t.Errorf("%q names no key of the config file: return a *fielderr.Error with its YAML path", p)
			}
		})
	}
}
