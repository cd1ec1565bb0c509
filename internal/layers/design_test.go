package layers

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDesignTable: the package tables of docs/DESIGN.md and README.md
// name every package of the module once, in their first column, and no
// package that does not exist, so that they cannot drift from the tree.
func TestDesignTable(t *testing.T) {
	var want []string
	for _, p := range packages(t) {
		want = append(want, p.rel)
	}
	for _, doc := range []string{"../../docs/DESIGN.md", "../../README.md"} {
		t.Run(doc[len("../../"):], func(t *testing.T) {
			b, err := os.ReadFile(doc)
			if err != nil {
				t.Fatal(err)
			}
			named := tableFirstColumn(string(b))
			if len(named) == 0 {
				t.Fatalf("no package table found (a table whose header starts with | package |)")
			}
			count := map[string]int{}
			for _, n := range named {
				count[n]++
			}
			for _, p := range want {
				switch count[p] {
				case 0:
					t.Errorf("package %s is missing from the table: add a row (or name it in a row's first column)", p)
				case 1:
				default:
					t.Errorf("package %s is named %d times in the first column: name it once", p, count[p])
				}
				delete(count, p)
			}
			for n := range count {
				t.Errorf("the table names %s, which is not a package of the module: remove or rename it", n)
			}
		})
	}
}

var backticked = regexp.MustCompile("`([^`]+)`")

// tableFirstColumn returns the packages named (in backticks, a trailing
// slash dropped) in the first column of the table whose header starts
// with "| package |".
func tableFirstColumn(doc string) []string {
	var out []string
	in := false
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "| package |"):
			in = true
			continue
		case !in:
			continue
		case !strings.HasPrefix(line, "|"):
			return out
		case strings.HasPrefix(line, "|---"):
			continue
		}
		cells := strings.Split(line, "|")
		if len(cells) < 2 {
			continue
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[1], -1) {
			out = append(out, strings.TrimSuffix(m[1], "/"))
		}
	}
	return out
}
