package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

var (
	codeSpan = regexp.MustCompile("`([^`]+)`")
	flagName = regexp.MustCompile(`(?:^|[\s\[(|])--([a-z][a-z0-9-]*)`)
)

// docFlag is a --flag a doc names, with the command it is given to.
type docFlag struct {
	cmd, flag string
	line      int
}

// docFlags lists the --flags of doc (markdown) with the command each is
// given to: on a code line starting "edged CMD", CMD; in a code span
// starting "edged CMD", CMD, which stays the command of the flags named
// after it in its section (a heading resets it to def); in a span
// starting "--", the section's command. A span naming another program
// (`vllm serve --api-key KEY`) is not edged's.
func docFlags(root *cobra.Command, doc, def string) []docFlag {
	var out []docFlag
	sub := func(words string) (string, bool) {
		f := strings.Fields(words)
		if len(f) < 2 || f[0] != "edged" {
			return "", false
		}
		c, _, err := root.Find(f[1:2])
		if err != nil || c == root {
			return "", false
		}
		return c.Name(), true
	}
	add := func(cmd, text string, line int) {
		for _, m := range flagName.FindAllStringSubmatch(text, -1) {
			out = append(out, docFlag{cmd, m[1], line})
		}
	}
	cur, code := def, false
	for i, l := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			code = !code
		case code:
			if c, ok := sub(l); ok {
				cur = c
			}
			add(cur, l, i+1)
		case strings.HasPrefix(l, "#"):
			cur = def
		default:
			for _, m := range codeSpan.FindAllStringSubmatch(l, -1) {
				if c, ok := sub(m[1]); ok {
					cur = c
					add(cur, m[1], i+1)
				} else if strings.HasPrefix(m[1], "--") {
					add(cur, m[1], i+1)
				}
			}
			add(cur, codeSpan.ReplaceAllString(l, ""), i+1) // a flag outside a span
		}
	}
	return out
}

// TestDocFlagsExist: every --flag a doc names exists on the command it
// is given to.
func TestDocFlagsExist(t *testing.T) {
	for _, tc := range []struct {
		doc, cmd string // the doc and the command its flags are given to by default
		min      int    // flags it names at least (the parse found them)
	}{
		{"../../docs/annotate.md", "annotate", 20},
	} {
		b, err := os.ReadFile(tc.doc)
		must(t, err)
		root := newRootCmd()
		flags := docFlags(root, string(b), tc.cmd)
		if len(flags) < tc.min {
			t.Errorf("%s: %d flags found, want at least %d: %v", tc.doc, len(flags), tc.min, flags)
		}
		for _, f := range flags {
			c, _, err := root.Find([]string{f.cmd})
			if err != nil || c.Flag(f.flag) == nil {
				t.Errorf("%s:%d names --%s of edged %s, which has no such flag", tc.doc, f.line, f.flag, f.cmd)
			}
		}
	}
}
