package ros

import (
	"fmt"
	"strings"
)

// Args are the ROS command-line arguments a node takes, as roscpp and
// rospy define them: special keys (__name:=, __ns:=, __log:=, __ip:=,
// __hostname:=, __master:=), private parameters (_key:=value) and topic
// remappings (from:=to). roslaunch appends them to a node's command line.
type Args struct {
	Name      string // __name: the node's base name
	Namespace string // __ns: the node's namespace
	Log       string // __log: the file roslaunch expects the node's log in
	IP        string // __ip: the address to advertise (after __hostname)
	Hostname  string // __hostname: the name to advertise
	Master    string // __master: the master's URI
	// Remaps maps a name as written (resolved when applied) to another.
	Remaps map[string]string
	// Params are private parameters (_key:=value, the key without its _),
	// set on the master under the node's name when it registers.
	Params map[string]string
}

// maxArgLen caps one argument: a name or URI longer than this is a mistake.
const maxArgLen = 4096

// SplitArgs takes the ROS arguments (every argument holding ":=") out of
// args and returns them parsed, with the other arguments in order. An
// argument such as "__name:=" with an empty value, an unknown special
// key or a remapping of an empty name is an error naming it.
func SplitArgs(args []string) (Args, []string, error) {
	var a Args
	var rest []string
	for _, arg := range args {
		key, val, ok := strings.Cut(arg, ":=")
		if !ok {
			rest = append(rest, arg)
			continue
		}
		if err := a.set(key, val); err != nil {
			return Args{}, nil, fmt.Errorf("ros argument %q: %w", arg, err)
		}
	}
	return a, rest, nil
}

func (a *Args) set(key, val string) error {
	if len(key) > maxArgLen || len(val) > maxArgLen {
		return fmt.Errorf("longer than %d bytes", maxArgLen)
	}
	if key == "" || val == "" {
		return fmt.Errorf("want NAME:=VALUE with both sides set")
	}
	if special, ok := strings.CutPrefix(key, "__"); ok {
		return a.setSpecial(special, val)
	}
	if param, ok := strings.CutPrefix(key, "_"); ok {
		if a.Params == nil {
			a.Params = map[string]string{}
		}
		a.Params[param] = val
		return nil
	}
	if a.Remaps == nil {
		a.Remaps = map[string]string{}
	}
	a.Remaps[key] = val
	return nil
}

func (a *Args) setSpecial(key, val string) error {
	fields := map[string]*string{"name": &a.Name, "ns": &a.Namespace, "log": &a.Log,
		"ip": &a.IP, "hostname": &a.Hostname, "master": &a.Master}
	p, ok := fields[key]
	if !ok {
		return fmt.Errorf("unknown special key __%s (known: __name, __ns, __log, __ip, __hostname, __master)", key)
	}
	*p = val
	return nil
}

// Apply returns c with the arguments laid over it: the command line wins
// over the config and the environment, as in roscpp. A __name is put
// in c's namespace (or __ns) like any relative node name.
func (a Args) Apply(c Config) Config {
	if a.Master != "" {
		c.MasterURI = a.Master
	}
	if a.Namespace != "" {
		c.Namespace = a.Namespace
	}
	if a.Name != "" {
		c.NodeName = a.Name
	}
	if a.Hostname != "" {
		c.Host = a.Hostname
	} else if a.IP != "" {
		c.Host = a.IP
	}
	if len(a.Remaps) > 0 {
		m := make(map[string]string, len(c.Remaps)+len(a.Remaps))
		for k, v := range c.Remaps {
			m[k] = v
		}
		for k, v := range a.Remaps {
			m[k] = v
		}
		c.Remaps = m
	}
	if len(a.Params) > 0 {
		c.PrivateParams = a.Params
	}
	return c
}
