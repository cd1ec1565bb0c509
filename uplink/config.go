package uplink

import (
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/edged-robotics/edged/internal/fielderr"
	"github.com/edged-robotics/edged/uplink/mqttconn"
	"github.com/edged-robotics/edged/uplink/outbox"
	"github.com/edged-robotics/edged/uplink/publish"
	"github.com/edged-robotics/edged/uplink/wire"
)

// Config of the uplink. Zero values take the documented defaults.
type Config struct {
	// Robot is robot_id: the topic namespace and the envelopes' robot.
	// Required.
	Robot string
	// Dir is the outbox directory (edged uses DATA_DIR/outbox). Required.
	Dir string
	// Broker: tcp://host:1883 or ssl://host:8883. "": keep messages in
	// the outbox until a broker is configured.
	Broker string
	// TopicPrefix: topics are PREFIX/ROBOT/KIND. Default "edged".
	TopicPrefix string
	// MaxPayload per MQTT message; larger messages are chunked.
	// Default 128KiB, 1KiB..256MiB (publish.CheckMaxPayload).
	MaxPayload int
	// OutboxBytes bounds the outbox. Default 2GiB, at least 1MiB.
	OutboxBytes int64
	// ClientID for MQTT. Default "edged-" + Robot.
	ClientID string
	// Username, Password and the TLS files (see mqttconn.Auth).
	Auth mqttconn.Auth
	// Bandwidth cap in bytes per second. Default 0: unlimited; else at
	// least 1KiB.
	Bandwidth int64
	// Window of messages in flight. Default 32.
	Window int
	// Version reported in the retained status.
	Version string
	// MinBackoff and MaxBackoff between reconnects. Defaults 500ms, 30s.
	MinBackoff, MaxBackoff time.Duration
	// StatusEvery refreshes the retained status, whatever the backlog.
	// Default 30s.
	StatusEvery time.Duration
	// ResendAfter: an ended episode whose every message the broker
	// acknowledged, and that the receiver has not acknowledged complete
	// this long after, has its end manifest sent again (a receiver that
	// lacks pieces then asks for them); each repeat waits twice as long
	// (at most MaxResendInterval, or ResendAfter when larger), at most
	// MaxResends times. Default 5m, at least 1s.
	ResendAfter time.Duration
	// Now is the clock of envelope creation times, the outbox's ages,
	// the status time and Flush's deadline. Default time.Now; a replay
	// may inject its own to be deterministic.
	Now func() time.Time
}

// Defaults.
const (
	DefaultTopicPrefix = "edged"
	DefaultMaxPayload  = 128 << 10
	DefaultOutboxBytes = outbox.DefaultMaxBytes // the outbox's own
	DefaultResendAfter = 5 * time.Minute
	// MaxResendInterval caps the backoff between repeats of an end
	// manifest; MaxResends is how many there are before the robot waits
	// for the receiver alone (its repair requests are still answered).
	MaxResendInterval = time.Hour
	MaxResends        = 10
)

// DefaultClientID is the MQTT client id of a robot that names none
// (config's uplink.client_id default too).
func DefaultClientID(robot string) string { return "edged-" + robot }

// Limits of Config. These rules (and Validate's) are the config file's
// uplink section's: `edged config check` and `edged run` apply them
// through daemon.Check; package config does not repeat them.
const (
	MinOutboxBytes = 1 << 20
	MinBandwidth   = 1 << 10
)

// MaxRobotID is the longest robot_id.
const MaxRobotID = 64

// episodeTimeEnd matches what ends the robot part of an episode id
// (episode.RobotOf): "-YYYYMMDDThhmmss.mmmZ" followed by '-' or the end.
// uplink may not import episode, so the form is repeated here; the
// round-trip test (TestRobotIDRoundTrip) keeps the two in step.
var episodeTimeEnd = regexp.MustCompile(`-[0-9]{8}T[0-9]{6}\.[0-9]{3}Z(-|$)`)

// CheckRobotID is the one rule of robot_id, which names this robot's
// MQTT topic level, its envelopes and its episode ids (so a path
// segment at the sink): 1..64 of letters, digits, '-', '_' and '.', not
// starting with '.' (never "." or ".."), and not containing what ends
// the robot part of an episode id ("-YYYYMMDDThhmmss.mmmZ" followed by
// '-' or the end): the receiver reads an id's robot up to the first
// such time (episode.RobotOf), so a robot_id like
// "arm-20260101T000000.000Z" would make ids of robot "arm" that no
// receiver takes from this robot. It is stricter than wire.SafeName,
// which a sink applies to what it receives and which also allows ':'.
// config does not repeat it; daemon.Check applies it.
func CheckRobotID(id string) error {
	switch {
	case id == "":
		return fielderr.New("robot_id", "required (names MQTT topics and episode ids)")
	case len(id) > MaxRobotID:
		return fielderr.New("robot_id", "must be at most %d characters", MaxRobotID)
	case strings.ContainsRune(id, ':') || !wire.SafeName(id):
		return fielderr.New("robot_id", "must use only letters, digits, '-', '_' and '.', and not start with '.', got %q", id)
	case episodeTimeEnd.MatchString(id + "-"):
		return fielderr.New("robot_id", "must not contain an episode time such as -20260101T000000.000Z "+
			"(episode ids are ROBOT-TIME[-NAME], so the robot would read as %q); rename the robot, got %q",
			id[:episodeTimeEnd.FindStringIndex(id + "-")[0]], id)
	}
	return nil
}

// validTopicPrefix: one or more MQTT topic levels of [A-Za-z0-9._-]
// joined by '/': no wildcard, no $ (broker-internal topics), no empty
// level.
func validTopicPrefix(p string) bool {
	for _, level := range strings.Split(p, "/") {
		if level == "" {
			return false
		}
		for _, r := range level {
			if !(r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')) {
				return false
			}
		}
	}
	return true
}

func (c Config) withDefaults() Config {
	if c.TopicPrefix == "" {
		c.TopicPrefix = DefaultTopicPrefix
	}
	if c.MaxPayload == 0 {
		c.MaxPayload = DefaultMaxPayload
	}
	if c.OutboxBytes == 0 {
		c.OutboxBytes = DefaultOutboxBytes
	}
	if c.ClientID == "" {
		c.ClientID = DefaultClientID(c.Robot)
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.ResendAfter == 0 {
		c.ResendAfter = DefaultResendAfter
	}
	return c
}

// Validate checks c without I/O; errors name the config field.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	add := func(field, f string, a ...any) {
		errs = append(errs, fielderr.New(field, f, a...))
	}
	if err := CheckRobotID(c.Robot); err != nil {
		errs = append(errs, err)
	}
	if c.Dir == "" {
		add("data_dir", "required (the outbox lives in DATA_DIR/outbox)")
	}
	if c.Broker != "" {
		if _, _, err := mqttconn.BrokerURL(c.Broker); err != nil {
			add("uplink.broker", "%v", strings.TrimPrefix(err.Error(), "broker: "))
		}
	}
	if !validTopicPrefix(c.TopicPrefix) {
		add("uplink.topic_prefix", "must be topic levels of letters, digits, '-', '_' and '.' joined by '/', got %q", c.TopicPrefix)
	}
	if err := publish.CheckMaxPayload(c.MaxPayload); err != nil {
		errs = append(errs, err)
	}
	if c.OutboxBytes < MinOutboxBytes {
		add("uplink.outbox_bytes", "must be >= 1MiB (room for a few sheets besides the never-evicted messages), got %d", c.OutboxBytes)
	}
	if c.Bandwidth < 0 || (c.Bandwidth > 0 && c.Bandwidth < MinBandwidth) {
		add("uplink.bandwidth", "must be 0 (unlimited) or >= 1KiB/s, got %d", c.Bandwidth)
	}
	if c.ResendAfter < time.Second {
		add("uplink.resend_after", "must be >= 1s (how long an ended episode waits for the receiver's acknowledgement before its end is sent again), got %v", c.ResendAfter)
	}
	if err := c.Auth.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
