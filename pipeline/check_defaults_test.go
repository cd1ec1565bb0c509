package pipeline

import (
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/sheet/recipe"
	"github.com/edged-robotics/edged/uplink"
)

// TestDefaultsReachTheComponents: a config of defaults only builds each
// component with that component's own defaults. config takes them from
// the components (config's TestDefaultsAreTheComponents); this checks
// the pipeline's mapping of each section onto the component's Config
// (units, fields) hands them over unchanged.
func TestDefaultsReachTheComponents(t *testing.T) {
	c, err := config.Parse([]byte("robot_id: arm-01\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := *c
	ucfg, err := uplinkConfig(&cfg, "")
	if err != nil {
		t.Fatal(err)
	}
	ccfg := captureConfig(&cfg, nil, nil, nil)
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"ring", ringConfig(&cfg), ringbuf.Config{}.WithDefaults()},
		{"sheet", cfg.Sheet.Recipe(), recipe.Default()},
		{"ros node name", ROSNodeConfig(&cfg, ros.Args{}).NodeName, ros.DefaultNodeName},
		{"capture queue size", ccfg.QueueSize, ros.DefaultQueueSize},
		{"capture max message", ccfg.MaxMessageBytes, ros.DefaultMaxMessageBytes},
		{"capture state queue size", ccfg.StateQueueSize, capture.DefaultStateQueueSize},
		{"capture queue bytes", ccfg.QueueBytes, capture.DefaultQueueBytes},
		{"capture state message", ccfg.MaxStateMessageBytes, capture.DefaultMaxStateMessageBytes},
		{"capture state queue bytes", ccfg.StateQueueBytes, capture.DefaultStateQueueBytes},
		{"capture stamp skew", ccfg.MaxStampSkew, time.Duration(capture.DefaultMaxStampSkew)},
		{"fsm max duration", fsmConfig(&cfg).MaxDuration, time.Duration(fsm.DefaultMaxDuration)},
		{"uplink topic prefix", ucfg.TopicPrefix, uplink.DefaultTopicPrefix},
		{"uplink max payload", ucfg.MaxPayload, uplink.DefaultMaxPayload},
		{"uplink outbox bytes", ucfg.OutboxBytes, int64(uplink.DefaultOutboxBytes)},
		{"uplink resend after", ucfg.ResendAfter, time.Duration(uplink.DefaultResendAfter)},
		{"uplink client id", ucfg.ClientID, uplink.DefaultClientID("arm-01")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("built with %+v, the component's default is %+v", tc.got, tc.want)
			}
		})
	}
}
