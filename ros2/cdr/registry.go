package cdr

import (
	"embed"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/edged-robotics/edged/internal/fsutil"
	"github.com/edged-robotics/edged/ros/msg"
	"github.com/edged-robotics/edged/rosmsg"
)

//go:embed msgs
var bundledFS embed.FS

// Registry holds .msg texts by type (pkg/msg/Name): the bundled ones,
// plus whatever AddDir or Add put there. A definition whose text lacks a
// nested block (a live publisher sends no definition; a .db3 may hold
// none) resolves its types here. A type given by Add or AddDir (the
// user's) also wins over a recording's own text for that type: the user
// gives it for recordings whose definitions are missing or wrong (the
// .db3 files of rosbag2's tests hold one-line placeholders such as
// "uint8 level" for rcl_interfaces/msg/Log). Set it up first; after that
// it is read-only and safe for concurrent use.
type Registry struct {
	texts map[string]string
	user  map[string]bool // types Add or AddDir registered
}

var (
	bundledOnce  sync.Once
	bundledTexts map[string]string
)

// Bundled returns a new Registry holding the definitions edged bundles
// (msgs/: builtin_interfaces, std_msgs, sensor_msgs, action_msgs,
// unique_identifier_msgs, rosgraph_msgs), written from the ROS 2
// interface specifications.
func Bundled() *Registry {
	bundledOnce.Do(func() {
		bundledTexts = map[string]string{}
		err := fs.WalkDir(bundledFS, "msgs", func(path string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".msg") {
				return err
			}
			b, err := bundledFS.ReadFile(path)
			if err == nil {
				bundledTexts[typeOfPath(path)] = string(b)
			}
			return err
		})
		if err != nil {
			panic(fmt.Sprintf("cdr: bundled definitions unreadable: %v", err)) // a build defect
		}
	})
	return &Registry{texts: maps.Clone(bundledTexts), user: map[string]bool{}}
}

// Load is the one way edged builds the registry of ROS 2 definitions
// (ros2.msg_dirs for edged run and replay, --msg-dir for the tools): the
// bundled definitions, then AddDir of each directory in order (a later
// directory's type replaces an earlier one's). An error names the
// directory or the file that does not parse.
func Load(dirs ...string) (*Registry, error) {
	r := Bundled()
	for _, d := range dirs {
		if err := r.AddDir(d); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// typeOfPath names a .msg file .../pkg/msg/Name.msg as pkg/msg/Name.
func typeOfPath(path string) string {
	path = filepath.ToSlash(path)
	name := strings.TrimSuffix(filepath.Base(path), ".msg")
	dir := filepath.Dir(path)
	pkg := filepath.Base(dir)
	if pkg == "msg" {
		pkg = filepath.Base(filepath.Dir(dir))
	}
	return pkg + "/msg/" + name
}

// typeOf is typeName in its canonical form, or the error Add and Parse
// give for a name that is not a ROS 2 type's.
func typeOf(typeName string) (string, error) {
	t, ok := Normalize(typeName)
	if !ok {
		return "", rosmsg.ROS2.Errorf("type %q: want pkg/msg/Name", typeName)
	}
	return t, nil
}

// Add registers the text of one type (pkg/msg/Name or pkg/Name),
// replacing a bundled one of the same name; it then also wins over a
// recording's text for that type (see Registry).
func (r *Registry) Add(typeName, text string) error {
	t, err := typeOf(typeName)
	if err != nil {
		return err
	}
	if len(text) > MaxDefinitionBytes {
		return rosmsg.ROS2.Errorf("%s: %d bytes, more than the %d allowed", t, len(text), MaxDefinitionBytes)
	}
	if _, err := rosmsg.ROS2.ParseText(t, text); err != nil {
		return err
	}
	r.texts[t] = text
	r.user[t] = true
	return nil
}

// maxUserFiles caps the .msg files AddDir reads.
const maxUserFiles = 10000

// AddDir registers every .msg file under dir, named by its place:
// dir/.../pkg/msg/Name.msg (a ROS 2 package's layout) or .../pkg/Name.msg.
// A file that does not parse is an error naming it.
func (r *Registry) AddDir(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("ros2 definitions: %w", err)
	}
	if !st.IsDir() {
		return fmt.Errorf("ros2 definitions: %s is not a directory (want PKG/msg/TYPE.msg under it)", dir)
	}
	n := 0
	return filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".msg") {
			return err
		}
		if n++; n > maxUserFiles {
			return fmt.Errorf("ros2 definitions in %s: more than %d .msg files; point at the packages edged needs", dir, maxUserFiles)
		}
		b, err := fsutil.ReadFileCapped(path, MaxDefinitionBytes)
		if err != nil {
			return fmt.Errorf("ros2 definition %s: %w", path, err)
		}
		if err := r.Add(typeOfPath(path), string(b)); err != nil {
			return fmt.Errorf("ros2 definition %s: %w", path, err)
		}
		return nil
	})
}

// Has reports whether the registry knows typeName.
func (r *Registry) Has(typeName string) bool {
	t, _ := Normalize(typeName)
	_, ok := r.texts[t]
	return ok
}

// Parse parses the definition of typeName from text (the type's own
// text, then nested "MSG:" blocks, as rosbag2 stores them: a block
// repeated with the same text counts once, see
// rosmsg.Dialect.SplitBlocks); a type that text does not define is taken
// from the registry. An empty text takes everything from the registry.
func (r *Registry) Parse(typeName, text string) (*Definition, error) {
	ros2 := rosmsg.ROS2
	if len(text) > MaxDefinitionBytes {
		return nil, ros2.Errorf("%d bytes, more than the %d allowed", len(text), MaxDefinitionBytes)
	}
	t, err := typeOf(typeName)
	if err != nil {
		return nil, err
	}
	main, blocks, err := ros2.SplitBlocks(text)
	if err != nil {
		return nil, err
	}
	if ev, ok := serviceEvent(t, main, blocks); ok {
		main = ev
	}
	if strings.TrimSpace(main) != "" {
		blocks[t] = main
	}
	return rosmsg.Resolve(ros2, t, r.text(blocks), build)
}

// Parse parses a definition with the bundled registry as the fallback.
func Parse(typeName, text string) (*Definition, error) {
	return defaultRegistry().Parse(typeName, text)
}

var (
	defaultOnce sync.Once
	defaultReg  *Registry
)

func defaultRegistry() *Registry {
	defaultOnce.Do(func() { defaultReg = Bundled() })
	return defaultReg
}

// text looks a type's text up in the blocks of one definition, then in
// the registry; a type the user gave wins over the blocks.
func (r *Registry) text(blocks map[string]string) func(string) (string, error) {
	return func(typeName string) (string, error) {
		text, ok := blocks[typeName]
		if r != nil && (!ok || r.user[typeName]) {
			if t, found := r.texts[typeName]; found {
				text, ok = t, true
			}
		}
		if !ok {
			return "", rosmsg.ROS2.Errorf("no definition of %s: not in the message's text nor among the known .msg files (add its package's .msg files to the ROS 2 definitions directory)", typeName)
		}
		return text, nil
	}
}

// build makes the Definition of a parsed type whose nested types are
// resolved, with its size bound and its ros/msg mirror.
func build(p *rosmsg.Parsed, nested []*Definition) (*Definition, error) {
	fields := p.Fields
	if len(fields) == 0 {
		// rosidl gives an empty struct one member, so it is on the wire
		fields = []rosmsg.Field{{Name: "structure_needs_at_least_one_member", Type: "uint8", Raw: "uint8", Kind: rosmsg.KindUint8}}
		nested = make([]*Definition, 1)
	}
	d := &Definition{Type: p.Type, Text: p.Text, Constants: p.Constants, Fields: make([]Field, len(fields))}
	for i, f := range fields {
		d.Fields[i] = Field{Name: f.Name, Type: f.Type, Kind: f.Kind, Array: f.Array, Len: f.Len,
			StringBound: f.StringBound, Default: f.Default, Msg: nested[i]}
	}
	d.minSize = rosmsg.MinSize(fields, func(i int) int { return nested[i].minSize })
	d.value = mirror(d)
	return d, nil
}

// mirror builds the ros/msg view of d that decoded Values point to.
func mirror(d *Definition) *msg.Definition {
	m := &msg.Definition{Type: ROS1Name(d.Type), Constants: d.Constants, Text: d.Text,
		Fields: make([]msg.Field, len(d.Fields))}
	for i, f := range d.Fields {
		mf := msg.Field{Name: f.Name, Type: f.Type, Kind: msgKind(f.Kind), IsArray: f.IsArray(), ArrayLen: -1}
		if f.Array == ArrayFixed {
			mf.ArrayLen = f.Len
		}
		if f.Msg != nil {
			mf.Type, mf.Msg = ROS1Name(f.Type), f.Msg.value
		}
		m.Fields[i] = mf
	}
	return m
}
