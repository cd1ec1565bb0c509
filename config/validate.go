package config

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/sheet/recipe"
)

// problems collects validation errors, each a *FieldError.
type problems []error

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)})
}

// FieldError is one problem of one field. Field is the YAML path
// (sheet.tile_width, fsm[0].type); a command that took the value from a
// flag renames it (see RenameFields).
type FieldError struct {
	Field, Msg string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Validate checks every field without I/O and returns all problems
// joined, or nil.
func (c *Config) Validate() error {
	var p problems
	c.validateTop(&p)
	c.validateROS(&p)
	c.validateTopics(&p)
	c.validateRecipe(&p)
	c.validateUplink(&p)
	if l := c.HTTP.Listen; l != "off" {
		if _, _, err := net.SplitHostPort(l); err != nil {
			p.add("http.listen", "must be host:port or \"off\", got %q", l)
		}
	}
	if len(p) == 0 {
		return nil
	}
	return &ValidationError{Problems: p}
}

// ValidationError lists every problem found, each naming its field.
type ValidationError struct{ Problems []error }

func (e *ValidationError) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0].Error()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d problems:", len(e.Problems))
	for _, p := range e.Problems {
		b.WriteString("\n  " + p.Error())
	}
	return b.String()
}

// Unwrap lets errors.Is and errors.As see each problem.
func (e *ValidationError) Unwrap() []error { return e.Problems }

// RenameFields returns err with the fields named in names (YAML path ->
// what the user wrote instead, e.g. "data_dir" -> "--out") renamed, so
// that an error about a value given as a flag names the flag. A field
// matches a name exactly or as its prefix followed by '.' or '['
// ("fsm[0]" renames fsm[0].type; the longest match wins). Other errors
// are returned unchanged.
func RenameFields(err error, names map[string]string) error {
	var ve *ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	out := &ValidationError{Problems: make([]error, len(ve.Problems))}
	for i, p := range ve.Problems {
		out.Problems[i] = p
		var fe *FieldError
		if !errors.As(p, &fe) {
			continue
		}
		best := "" // the longest name that matches wins
		for from := range names {
			if rest, ok := strings.CutPrefix(fe.Field, from); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') && len(from) > len(best) {
				best = from
			}
		}
		if best != "" {
			out.Problems[i] = &FieldError{Field: names[best] + fe.Field[len(best):], Msg: fe.Msg}
		}
	}
	return out
}

func (c *Config) validateTop(p *problems) {
	switch {
	case c.RobotID == "":
		p.add("robot_id", "required (names MQTT topics and episode ids)")
	case len(c.RobotID) > 64:
		p.add("robot_id", "must be at most 64 characters")
	case !SafeSegment(c.RobotID):
		p.add("robot_id", "must use only letters, digits, '-', '_' and '.', and not start with '.', got %q", c.RobotID)
	}
	if !strings.HasPrefix(c.DataDir, "/") && !strings.HasPrefix(c.DataDir, ".") {
		p.add("data_dir", "must be an absolute path or start with ./, got %q", c.DataDir)
	}
	if c.Episode.MaxDuration < Duration(time.Second) {
		p.add("episode.max_duration", "must be >= 1s")
	}
	if c.Episode.KeepBytes < 1<<20 {
		p.add("episode.keep_bytes", "must be >= 1MiB")
	}
	if c.Episode.MinFreeBytes < 0 {
		p.add("episode.min_free_bytes", "must be >= 0 (0: no floor)")
	}
	if c.Episode.KeepEpisodes < 1 {
		p.add("episode.keep_episodes", "must be >= 1")
	}
	checkTopic(p, "episode.recording_topic", c.Episode.RecordingTopic, true)
	checkTopic(p, "episode.instruction_topic", c.Episode.InstructionTopic, true)
	if c.Capture.MaxStampSkew < 0 {
		p.add("capture.max_stamp_skew", "must be >= 0")
	}
}

func (c *Config) validateROS(p *problems) {
	if u := c.ROS.MasterURI; u != "" {
		if pu, err := url.Parse(u); err != nil || pu.Scheme != "http" || pu.Host == "" {
			p.add("ros.master_uri", "must be http://host:port, got %q", u)
		}
	}
	if n := c.ROS.NodeName; strings.HasPrefix(n, "~") {
		p.add("ros.node_name", "must be a global or relative name, got the private name %q", n)
	} else if err := ros.CheckName(n); err != nil {
		p.add("ros.node_name", "%v", err)
	}
	if c.ROS.MaxMessage < 1024 {
		p.add("ros.max_message", "must be >= 1KiB")
	}
	if c.ROS.QueueSize < 1 || c.ROS.QueueSize > 10000 {
		p.add("ros.queue_size", "must be in 1..10000")
	}
	if c.ROS.StateQueueSize < 1 || c.ROS.StateQueueSize > 100000 {
		p.add("ros.state_queue_size", "must be in 1..100000")
	}
	if c.ROS.QueueBytes < c.ROS.MaxMessage {
		p.add("ros.queue_bytes", "must be >= ros.max_message (%d): one message must fit", c.ROS.MaxMessage)
	}
	if c.ROS.MaxStateMessage < 1024 {
		p.add("ros.max_state_message", "must be >= 1KiB")
	}
	if c.ROS.StateQueueBytes < c.ROS.MaxStateMessage {
		p.add("ros.state_queue_bytes", "must be >= ros.max_state_message (%d): one message must fit", c.ROS.MaxStateMessage)
	}
	if v := c.ROS.Version; v < 0 || v > 2 {
		p.add("ros.version", "must be 1, 2 or 0 (auto: ROS_VERSION from the environment), got %d", v)
	}
	if d := c.ROS2.DomainID; d != nil && (*d < 0 || *d > 232) {
		p.add("ros2.domain_id", "must be in 0..232, got %d", *d)
	}
	for topic, profile := range c.ROS2.QoS {
		switch profile {
		case "auto", "default", "sensor_data", "latched":
		default:
			p.add("ros2.qos", "topic %s: unknown profile %q (want auto, default, sensor_data or latched)", topic, profile)
		}
	}
}

func (c *Config) validateTopics(p *problems) {
	seen := map[string]string{}
	dup := func(field, topic string) {
		if prev, ok := seen[topic]; ok {
			p.add(field, "topic %s is already used by %s", topic, prev)
		}
		seen[topic] = field
	}
	for i, cam := range c.Cameras {
		f := fmt.Sprintf("cameras[%d].topic", i)
		checkTopic(p, f, cam.Topic, false)
		dup(f, cam.Topic)
	}
	for i, j := range c.Joints {
		f := fmt.Sprintf("joints[%d].topic", i)
		checkTopic(p, f, j.Topic, false)
		dup(f, j.Topic)
	}
	for i, s := range c.FSM {
		f := fmt.Sprintf("fsm[%d]", i)
		checkTopic(p, f+".topic", s.Topic, false)
		dup(f+".topic", s.Topic)
		switch s.Type {
		case FSMString, FSMSmach, FSMActionlib:
			if s.Field != "" {
				p.add(f+".field", "only allowed with type field")
			}
		case FSMField:
			if s.Field == "" {
				p.add(f+".field", "required with type field (e.g. status.phase)")
			}
		default:
			p.add(f+".type", "must be string, smach, actionlib or field, got %q", s.Type)
		}
	}
}

// validateRecipe applies the sheet package's own rule set (sheet/recipe:
// field ranges, at most 400 tiles, the sheet's pixel budget), so config
// check refuses exactly the recipes the sheet builder would.
func (c *Config) validateRecipe(p *problems) {
	if _, err := recipe.Preset(c.Sheet.Preset); err != nil {
		p.add("sheet.preset", "must be %s or %s, got %q", recipe.PresetPublished, recipe.PresetLowCost, c.Sheet.Preset)
	}
	if err := c.Sheet.Recipe().Validate(); err != nil {
		var fe *recipe.FieldError
		for _, e := range unjoin(err) {
			if errors.As(e, &fe) {
				p.add("sheet."+fe.Field, "%s", fe.Msg)
			} else {
				*p = append(*p, e)
			}
		}
	}
	// ring.max_bytes is ringbuf's rule (applied by daemon.Check); this
	// one spans two sections, so it is config's.
	if c.Ring.MaxAge < c.Sheet.Interval+c.Sheet.Grace {
		p.add("ring.max_age", "must be >= sheet.interval + sheet.grace (%s)", (c.Sheet.Interval + c.Sheet.Grace).D())
	}
}

// validateUplink checks the broker address (its flag, replay's
// --broker, is renamed in its errors); the uplink package owns the
// section's other rules.
func (c *Config) validateUplink(p *problems) {
	u := c.Uplink
	if u.Broker != "" {
		pu, err := url.Parse(u.Broker)
		switch {
		case pu != nil && pu.User != nil:
			// paho would not send them, and the URL is logged: refuse,
			// without echoing the secret.
			p.add("uplink.broker", "must not hold credentials: put the username in uplink.username and the password in uplink.password_file")
		case err != nil || pu.Host == "":
			p.add("uplink.broker", "must be tcp://host:port or ssl://host:port, got %q", redactUserinfo(u.Broker))
		case pu.Scheme != "tcp" && pu.Scheme != "ssl" && pu.Scheme != "mqtt" && pu.Scheme != "mqtts" && pu.Scheme != "tls":
			p.add("uplink.broker", "scheme must be tcp, mqtt, ssl, mqtts or tls, got %q", pu.Scheme)
		case pu.Port() == "":
			p.add("uplink.broker", "needs a port (tcp://host:1883, ssl://host:8883), got %q", u.Broker)
		}
	}
	// topic_prefix, max_payload, outbox_bytes, bandwidth and the
	// cert_file/key_file pair are the uplink's rules (uplink.Config
	// Validate), applied by daemon.Check: one owner each.
}

// redactUserinfo hides what precedes the last '@' of a broker address
// that did not parse (it may hold a password).
func redactUserinfo(broker string) string {
	if at := strings.LastIndexByte(broker, '@'); at >= 0 {
		return "REDACTED" + broker[at:]
	}
	return broker
}

func checkTopic(p *problems, field, topic string, optional bool) {
	if topic == "" {
		if !optional {
			p.add(field, "required")
		}
		return
	}
	if err := ros.CheckName(topic); err != nil {
		p.add(field, "%v", err)
	}
}

// SafeSegment is the one rule for ids that become a path segment and
// an MQTT topic level (robot_id): letters, digits, '-', '_' and '.', not
// starting with '.' (so never "." or ".."). It is stricter than the
// wire's SafeName, which also allows ':'.
func SafeSegment(s string) bool { return s != "" && s[0] != '.' && isIdent(s) }

// unjoin lists the errors of an errors.Join (or err itself).
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		ok := r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !ok {
			return false
		}
	}
	return true
}
