package config

import (
	"testing"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/clip/policy"
	"github.com/edged-robotics/edged/episode/store"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/ringbuf"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/sheet/recipe"
	"github.com/edged-robotics/edged/uplink"
)

// TestDefaultsAreTheComponents: the defaults config documents (Default)
// are each component's own, so that a section left out of the file
// configures the component exactly as the component's defaults would.
// Default takes them from the components; this keeps anyone from
// writing a value there again. daemon's TestDefaultsReachTheComponents
// checks that the daemon hands them over unchanged.
func TestDefaultsAreTheComponents(t *testing.T) {
	d := Default()
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		// sheet.grace was 1s here and 500ms in the recipe (issue 22)
		{"sheet", d.Sheet.Recipe(), recipe.Default()},
		// ring was 256MiB/30s here and 64MiB/10s in ringbuf (issue 22)
		{"ring", ringbuf.Config{MaxBytes: int(d.Ring.MaxBytes), MaxAge: d.Ring.MaxAge.D()}, ringbuf.Config{
			MaxBytes: ringbuf.DefaultMaxBytes, MaxAge: ringbuf.DefaultMaxAge}},
		{"ros.node_name", d.ROS.NodeName, ros.DefaultNodeName},
		{"ros.max_message", int(d.ROS.MaxMessage), ros.DefaultMaxMessageBytes},
		{"ros.queue_size", d.ROS.QueueSize, ros.DefaultQueueSize},
		{"ros.state_queue_size", d.ROS.StateQueueSize, capture.DefaultStateQueueSize},
		{"ros.queue_bytes", int(d.ROS.QueueBytes), capture.DefaultQueueBytes},
		{"ros.max_state_message", int(d.ROS.MaxStateMessage), capture.DefaultMaxStateMessageBytes},
		{"ros.state_queue_bytes", int(d.ROS.StateQueueBytes), capture.DefaultStateQueueBytes},
		{"capture.max_stamp_skew", d.Capture.MaxStampSkew.D(), time.Duration(capture.DefaultMaxStampSkew)},
		{"fsm[].type", DefaultFSMType, fsm.KindString},
		{"episode.max_duration", d.Episode.MaxDuration.D(), time.Duration(fsm.DefaultMaxDuration)},
		{"episode.keep_bytes", int64(d.Episode.KeepBytes), int64(store.DefaultMaxBytes)},
		{"episode.keep_episodes", d.Episode.KeepEpisodes, store.DefaultMaxEpisodes},
		{"episode.min_free_bytes", int64(d.Episode.MinFreeBytes), int64(store.DefaultMinFree)},
		{"uplink.topic_prefix", d.Uplink.TopicPrefix, uplink.DefaultTopicPrefix},
		{"uplink.max_payload", int(d.Uplink.MaxPayload), uplink.DefaultMaxPayload},
		{"uplink.outbox_bytes", int64(d.Uplink.OutboxBytes), int64(uplink.DefaultOutboxBytes)},
		{"clips.pre", d.Clips.Pre.D(), policy.DefaultPre},
		{"clips.post", d.Clips.Post.D(), policy.DefaultPost},
		{"clips.min_interval", d.Clips.MinInterval.D(), policy.DefaultMinInterval},
		{"clips.max_bytes", int64(d.Clips.MaxBytes), int64(policy.DefaultMaxBytes)},
		{"clips.quality", d.Clips.Quality, policy.DefaultQuality},
		{"clips.upload", d.Clips.Upload, policy.Default().Upload},
		{"clips.upload_rate", int64(d.Clips.UploadRate), int64(policy.DefaultUploadRate)},
		{"clips.upload_part", int64(d.Clips.UploadPart), int64(policy.DefaultUploadPart)},
		{"clips.keep_uploaded", d.Clips.KeepUploaded, policy.Default().KeepUploaded},
		{"clips.enabled", d.Clips.Enabled, policy.Default().Enabled},
		{"clips.on_failure_outcome", d.Clips.OnFailureOutcome, policy.Default().OnFailureOutcome},
		{"clips.on_goal_failure", d.Clips.OnGoalFailure, policy.Default().OnGoalFailure},
		{"uplink.resend_after", d.Uplink.ResendAfter.D(), time.Duration(uplink.DefaultResendAfter)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("config's default %+v, the component's %+v", tc.got, tc.want)
			}
		})
	}
}

// TestClientIDDefaultIsTheUplinks: uplink.client_id defaults as the
// uplink defaults Config.ClientID.
func TestClientIDDefaultIsTheUplinks(t *testing.T) {
	c, err := Parse([]byte("robot_id: arm-01\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := uplink.DefaultClientID("arm-01"); c.Uplink.ClientID != want {
		t.Errorf("client_id %q, the uplink's default %q", c.Uplink.ClientID, want)
	}
}
