package rosmsg

import "strings"

// SplitBlocks separates the main text of a definition from its nested
// "MSG: pkg/Name" blocks, each after a line of '=' (as ROS1 publishers,
// bags, rosbag2 and MCAP schemas carry them). Block names are in the
// dialect's canonical form.
//
// A type's block may appear more than once: rosbag2 writes a dependency's
// block once per field that refers to it (its talker bags do). A repeat
// with the same text (line by line, ignoring surrounding white space and
// blank lines) is dropped; a repeat with other text is an error naming
// the type, since no rule could say which of the two the publisher used.
func (d *Dialect) SplitBlocks(text string) (string, map[string]string, error) {
	blocks := map[string]string{}
	var main strings.Builder
	var cur *strings.Builder
	var curName string
	flush := func() error {
		if cur == nil {
			return nil
		}
		prev, dup := blocks[curName]
		if dup && !sameText(prev, cur.String()) {
			return d.Errorf("nested block %s defined twice with different text: the definition is ambiguous; fix the recording's or the publisher's definition", curName)
		}
		if !dup {
			blocks[curName] = cur.String()
		}
		return nil
	}
	sep := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if len(trimmed) >= 3 && strings.Trim(trimmed, "=") == "" {
			sep = true
			continue
		}
		if sep && trimmed == "" {
			continue
		}
		if name, ok := strings.CutPrefix(trimmed, "MSG:"); ok && sep {
			if err := flush(); err != nil {
				return "", nil, err
			}
			n, ok := d.typeName(strings.TrimSpace(name))
			if !ok {
				return "", nil, d.Errorf("nested block %q: want MSG: package/Name", trimmed)
			}
			cur, curName, sep = &strings.Builder{}, n, false
			continue
		}
		if sep {
			return "", nil, d.Errorf("line %q after a separator: want MSG: package/Name", trimmed)
		}
		w := &main
		if cur != nil {
			w = cur
		}
		w.WriteString(line)
		w.WriteByte('\n')
	}
	if err := flush(); err != nil {
		return "", nil, err
	}
	return main.String(), blocks, nil
}

// sameText compares two blocks line by line, ignoring white space around
// lines and blank lines (the last block of a text has no final newline).
func sameText(a, b string) bool {
	la, lb := contentLines(a), contentLines(b)
	if len(la) != len(lb) {
		return false
	}
	for i := range la {
		if la[i] != lb[i] {
			return false
		}
	}
	return true
}

func contentLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
