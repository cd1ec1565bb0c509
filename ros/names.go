package ros

import (
	"fmt"
	"strings"

	"github.com/edged-robotics/edged/internal/fielderr"
)

// names resolves graph resource names as roscpp does: a global name
// (/a/b) stands as it is, a private one (~b) goes under the node's name,
// a relative one (b) into the namespace; then the remappings apply to
// the resolved name.
type names struct {
	namespace string            // global, no trailing / (root: "")
	node      string            // the node's global name
	remaps    map[string]string // resolved from -> resolved to
}

// newNames resolves the node's name in namespace, and both sides of
// every remapping as the node would (remapping keys of __ prefix are
// the caller's business, not here).
func newNames(namespace, nodeName string, remaps map[string]string) (names, error) {
	ns := strings.TrimSuffix(globalNamespace(namespace), "/")
	n := names{namespace: ns}
	n.node = n.plain(nodeName)
	if err := checkName(n.node); err != nil {
		return names{}, fielderr.New("ros.node_name", "%w", err)
	}
	n.remaps = make(map[string]string, len(remaps))
	for from, to := range remaps {
		f, t := n.plain(from), n.plain(to)
		if err := checkName(f); err != nil {
			return names{}, fmt.Errorf("remapping %s:=%s: %w", from, to, err)
		}
		if err := checkName(t); err != nil {
			return names{}, fmt.Errorf("remapping %s:=%s: %w", from, to, err)
		}
		n.remaps[f] = t
	}
	return n, nil
}

// globalNamespace makes a namespace global: "robot1" is "/robot1", as
// roscpp treats ROS_NAMESPACE and __ns; "" is the root.
func globalNamespace(ns string) string {
	if !strings.HasPrefix(ns, "/") {
		ns = "/" + ns
	}
	return ns
}

// plain resolves name without remapping.
func (n names) plain(name string) string {
	switch {
	case strings.HasPrefix(name, "/"):
		return name
	case strings.HasPrefix(name, "~"):
		return n.node + "/" + strings.TrimPrefix(name[1:], "/")
	case name == "":
		if n.namespace == "" {
			return "/"
		}
		return n.namespace
	default:
		return n.namespace + "/" + name
	}
}

// resolve resolves name and applies the remappings.
func (n names) resolve(name string) string {
	r := n.plain(name)
	if to, ok := n.remaps[r]; ok {
		return to
	}
	return r
}

// checkName accepts ROS graph resource names: /a/b_1, no empty parts,
// each part starting with a letter or an underscore. ROS 2 hides topics
// behind a leading underscore (an action's /nav/_action/status), and
// roscpp, rospy and rcl all accept it; none accepts a part that starts
// with a digit (rcl refuses it, the ROS1 master's clients differ).
func checkName(name string) error {
	if !strings.HasPrefix(name, "/") || name == "/" || strings.HasSuffix(name, "/") {
		return fmt.Errorf("%q is not a valid ROS name", name)
	}
	for _, part := range strings.Split(name[1:], "/") {
		if part == "" {
			return fmt.Errorf("%q has an empty part", name)
		}
		for i, r := range part {
			letter := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || r == '_'
			if !(letter || (i > 0 && r >= '0' && r <= '9')) {
				return fmt.Errorf("%q: part %q must start with a letter or _ and hold letters, digits and _", name, part)
			}
		}
	}
	return nil
}

// CheckName is the one rule for a graph resource name as a user writes
// it (in the config or on the command line): global (/a/b), relative
// (a/b, resolved in the namespace) or private (~a, under the node's
// name). It needs no namespace: the rule is the same in all of them.
func CheckName(name string) error {
	resolved := name
	switch {
	case strings.HasPrefix(name, "~"):
		resolved = "/node/" + strings.TrimPrefix(name[1:], "/")
	case !strings.HasPrefix(name, "/"):
		resolved = "/ns/" + name
	}
	if err := checkName(resolved); err != nil {
		return fmt.Errorf("%q is not a ROS graph name (global /a/b, relative a/b or private ~a; parts start with a letter or _ and hold letters, digits and _)", name)
	}
	return nil
}

// Resolver resolves names as a node with a Config would, without being
// one: relative names into the namespace ($ROS_NAMESPACE counts, as for
// a node), private ones under the node's name. It applies no
// remappings: a node applies those to every name it subscribes to, so
// names resolved here stay the ones the user wrote, made global.
type Resolver struct{ n names }

// NewResolver returns the resolver of a node with cfg (defaults applied).
func NewResolver(cfg Config) (Resolver, error) {
	cfg = cfg.withDefaults()
	n, err := newNames(cfg.Namespace, cfg.NodeName, nil)
	return Resolver{n}, err
}

// Resolve makes name global. An empty name stays empty.
func (r Resolver) Resolve(name string) string {
	if name == "" {
		return ""
	}
	return r.n.plain(name)
}
