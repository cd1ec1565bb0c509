package config

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"path/filepath"
	"slices"
	"strings"

	"github.com/edged-robotics/edged/fsm/fsmkind"
	"github.com/edged-robotics/edged/internal/fielderr"
	"github.com/edged-robotics/edged/ros"
	"github.com/edged-robotics/edged/ros2/dds"
	"github.com/edged-robotics/edged/sheet/recipe"
)

// problems collects validation errors, each a *FieldError.
type problems []error

func (p *problems) add(field, format string, args ...any) {
	*p = append(*p, fielderr.New(field, format, args...))
}

// FieldError is one problem of one field. Field is the YAML path
// (sheet.tile_width, fsm[0].type); a command that took the value from a
// flag renames it (see RenameFields). It is the type the components'
// own rules return too (internal/fielderr), so renaming reaches the
// errors of daemon.Check as well as Validate's.
type FieldError = fielderr.Error

// Validate checks every field without I/O and returns all problems
// joined, or nil.
func (c *Config) Validate() error {
	var p problems
	c.validateTop(&p)
	c.validateROS(&p)
	c.validateTopics(&p)
	c.validateRecipe(&p)
	c.Discovery.validate(&p)
	if g := c.Replay.MaxGap; g < MinMaxGap || g > MaxMaxGap {
		// the upper bound keeps what a gap below it costs (ticks, and
		// episodes cut at max_duration) finite
		p.add("replay.max_gap", "must be in %s..%s, got %s", MinMaxGap.D(), MaxMaxGap.D(), g.D())
	}
	c.validateClips(&p)
	if l := c.HTTP.Listen; l != "off" {
		if _, _, err := net.SplitHostPort(l); err != nil {
			p.add("http.listen", "must be host:port or \"off\", got %q", l)
		}
	} else if c.HTTP.Pprof {
		p.add("http.pprof", "needs http.listen: it is served there (set http.listen to a loopback host:port, or pprof to false)")
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
// ("fsm[0]" renames fsm[0].type; the longest match wins). err may be a
// *ValidationError or any errors.Join tree (daemon.Check's): every
// *FieldError in it is renamed, and the result lists the problems
// flat. An error holding no field error is returned unchanged.
func RenameFields(err error, names map[string]string) error {
	var fe *FieldError
	if !errors.As(err, &fe) {
		return err
	}
	leaves := unjoinAll(err)
	out := &ValidationError{Problems: make([]error, len(leaves))}
	for i, p := range leaves {
		out.Problems[i] = p
		if errors.As(p, &fe) {
			out.Problems[i] = rename(fe, names)
		}
	}
	return out
}

// rename returns fe under the longest name of names that matches its
// field, or fe when none does.
func rename(fe *FieldError, names map[string]string) error {
	best := ""
	for from := range names {
		if rest, ok := strings.CutPrefix(fe.Field, from); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') && len(from) > len(best) {
			best = from
		}
	}
	if best == "" {
		return fe
	}
	return &FieldError{Field: names[best] + fe.Field[len(best):], Msg: fe.Msg, Err: fe.Err}
}

// unjoinAll lists the leaves of a tree of joined errors (errors.Join,
// *ValidationError), also below an error that wraps a join (its
// message, which only adds context, is dropped).
func unjoinAll(err error) []error {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		if u := errors.Unwrap(err); u != nil {
			if _, multi := u.(interface{ Unwrap() []error }); multi {
				return unjoinAll(u)
			}
		}
		return []error{err}
	}
	var out []error
	for _, e := range j.Unwrap() {
		out = append(out, unjoinAll(e)...)
	}
	return out
}

func (c *Config) validateTop(p *problems) {
	// robot_id is the uplink's rule (uplink.CheckRobotID), and
	// episode.max_duration fsm's (fsm.CheckMaxDuration): daemon.Check
	// applies them.
	if !strings.HasPrefix(c.DataDir, "/") && !strings.HasPrefix(c.DataDir, ".") {
		p.add("data_dir", "must be an absolute path or start with ./, got %q", c.DataDir)
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
}

func (c *Config) validateROS(p *problems) {
	// ros.master_uri and ros.node_name are the node's rules
	// (ros.Config.Validate); the queue and message bounds and
	// capture.max_stamp_skew are capture's (capture.Config.Validate):
	// daemon.Check applies both.
	if v := c.ROS.Version; v < 0 || v > 2 {
		p.add("ros.version", "must be 1, 2 or 0 (auto: ROS_VERSION from the environment), got %d", v)
	}
	if d := c.ROS2.DomainID; d != nil && (*d < 0 || *d > 232) {
		p.add("ros2.domain_id", "must be in 0..232, got %d", *d)
	}
	seen := map[string]bool{}
	for i, dir := range c.ROS2.MsgDirs {
		switch {
		case strings.TrimSpace(dir) == "":
			p.add("ros2.msg_dirs", "entry %d is empty (want a directory of PKG/msg/TYPE.msg files)", i)
		case seen[filepath.Clean(dir)]:
			p.add("ros2.msg_dirs", "%s is listed twice", dir)
		}
		seen[filepath.Clean(dir)] = true
	}
	for _, topic := range slices.Sorted(maps.Keys(c.ROS2.QoS)) { // sorted: the same errors every time
		checkTopic(p, "ros2.qos", topic, false)
		// the profiles are the DDS layer's (one table: dds.ParseProfile)
		if _, err := dds.ParseProfile(c.ROS2.QoS[topic]); err != nil {
			p.add("ros2.qos", "topic %s: %v", topic, err)
		}
	}
}

// validateTopics applies ros.CheckName, the one rule of a ROS name, to
// every topic as written (relative and private names included). That
// no topic feeds two roles is capture's rule and the sources' types
// and fields fsm's: daemon.Check applies both to the resolved topics.
func (c *Config) validateTopics(p *problems) {
	for i, cam := range c.Cameras {
		checkTopic(p, fmt.Sprintf("cameras[%d].topic", i), cam.Topic, false)
	}
	for i, j := range c.Joints {
		checkTopic(p, fmt.Sprintf("joints[%d].topic", i), j.Topic, false)
	}
	for i, s := range c.FSM {
		checkTopic(p, fmt.Sprintf("fsm[%d].topic", i), s.Topic, false)
	}
}

// validateRecipe applies the sheet package's own rule set (sheet/recipe:
// field ranges, at most 400 tiles, the sheet's pixel budget), so config
// check refuses exactly the recipes the sheet builder would.
func (c *Config) validateRecipe(p *problems) {
	if _, err := recipe.Preset(c.Sheet.Preset); err != nil {
		*p = append(*p, err)
	}
	if err := c.Sheet.Recipe().Validate(); err != nil {
		*p = append(*p, unjoin(err)...)
	}
	// ring.max_bytes is ringbuf's rule (applied by daemon.Check); this
	// one spans two sections, so it is config's.
	if c.Ring.MaxAge < c.Sheet.Interval+c.Sheet.Grace {
		p.add("ring.max_age", "must be >= sheet.interval + sheet.grace (%s)", (c.Sheet.Interval + c.Sheet.Grace).D())
	}
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

// unjoin lists the errors of an errors.Join (or err itself).
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// validateClips applies the clip package's rules and the rules across
// sections: on_goal_failure needs an actionlib fsm source, and the
// clip's window must fit the rings' age.
func (c *Config) validateClips(p *problems) {
	if err := c.Clips.Policy().Validate(); err != nil {
		*p = append(*p, err)
		return
	}
	hasGoals := slices.ContainsFunc(c.FSM, func(s FSMSource) bool { return s.Type == fsmkind.Actionlib })
	if err := c.Clips.Policy().CheckGoalSources(hasGoals); err != nil {
		*p = append(*p, err)
	}
	if w := c.Clips.Pre + c.Clips.Post; c.Clips.Enabled && w > c.Ring.MaxAge {
		p.add("clips.pre", "pre + post (%s) must be <= ring.max_age (%s): the window is read from the rings", w.D(), c.Ring.MaxAge.D())
	}
}
