package config

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// problems collects validation errors, each naming its field.
type problems []error

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
}

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

func (c *Config) validateTop(p *problems) {
	switch {
	case c.RobotID == "":
		p.add("robot_id", "required (names MQTT topics and episode ids)")
	case len(c.RobotID) > 64:
		p.add("robot_id", "must be at most 64 characters")
	case !isIdent(c.RobotID):
		p.add("robot_id", "must use only letters, digits, '-', '_' and '.', got %q", c.RobotID)
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
	if n := c.ROS.NodeName; !strings.HasPrefix(n, "/") || strings.ContainsAny(n, " \t") || len(n) < 2 {
		p.add("ros.node_name", "must be a graph name starting with /, got %q", n)
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

func (c *Config) validateRecipe(p *problems) {
	s := c.Sheet
	if s.Preset != PresetPublished && s.Preset != PresetLowCost {
		p.add("sheet.preset", "must be %s or %s, got %q", PresetPublished, PresetLowCost, s.Preset)
	}
	if s.Interval < Duration(10*time.Millisecond) {
		p.add("sheet.interval", "must be >= 10ms")
	}
	if s.TileWidth <= 0 || s.TileWidth > 4096 {
		p.add("sheet.tile_width", "must be > 0 and <= 4096")
	}
	if s.Columns <= 0 || s.Columns > 64 {
		p.add("sheet.columns", "must be in 1..64")
	}
	if s.Rows <= 0 || s.Rows > 64 {
		p.add("sheet.rows", "must be in 1..64")
	}
	if s.Quality < 1 || s.Quality > 100 {
		p.add("sheet.quality", "must be in 1..100")
	}
	if s.Grace < 0 {
		p.add("sheet.grace", "must be >= 0")
	}
	if c.Ring.MaxBytes < 1<<20 {
		p.add("ring.max_bytes", "must be >= 1MiB")
	}
	if c.Ring.MaxAge < c.Sheet.Interval+c.Sheet.Grace {
		p.add("ring.max_age", "must be >= sheet.interval + sheet.grace (%s)", (c.Sheet.Interval + c.Sheet.Grace).D())
	}
}

func (c *Config) validateUplink(p *problems) {
	u := c.Uplink
	if u.Broker != "" {
		pu, err := url.Parse(u.Broker)
		switch {
		case err != nil || pu.Host == "":
			p.add("uplink.broker", "must be tcp://host:port or ssl://host:port, got %q", u.Broker)
		case pu.Scheme != "tcp" && pu.Scheme != "ssl" && pu.Scheme != "mqtt" && pu.Scheme != "mqtts" && pu.Scheme != "tls":
			p.add("uplink.broker", "scheme must be tcp, mqtt, ssl, mqtts or tls, got %q", pu.Scheme)
		}
	}
	if !isIdent(strings.ReplaceAll(u.TopicPrefix, "/", "_")) {
		p.add("uplink.topic_prefix", "must use letters, digits, '-', '_', '.' and '/', got %q", u.TopicPrefix)
	}
	if u.MaxPayload < 1024 {
		p.add("uplink.max_payload", "must be >= 1024")
	}
	if u.MaxPayload > 256<<20 {
		p.add("uplink.max_payload", "must be <= 256MiB (the MQTT limit)")
	}
	if u.OutboxBytes < 16<<20 {
		p.add("uplink.outbox_bytes", "must be >= 16MiB")
	}
	if (u.CertFile == "") != (u.KeyFile == "") {
		p.add("uplink.cert_file", "cert_file and key_file go together")
	}
	if u.Bandwidth < 0 || (u.Bandwidth > 0 && u.Bandwidth < 1024) {
		p.add("uplink.bandwidth", "must be 0 (unlimited) or >= 1KiB")
	}
}

func checkTopic(p *problems, field, topic string, optional bool) {
	if topic == "" {
		if !optional {
			p.add(field, "required")
		}
		return
	}
	if !strings.HasPrefix(topic, "/") || strings.ContainsAny(topic, " \t\n") {
		p.add(field, "must be a global ROS name starting with /, got %q", topic)
	}
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
