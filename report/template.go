package report

import (
	_ "embed"
	"fmt"
	"html/template"
)

//go:embed page.html.tmpl
var pageHTML string

var pageTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"plural": plural,
	"mb":     func(n int64) float64 { return float64(n) / (1 << 20) },
	"kb": func(n int) string {
		if n >= 1<<20 {
			return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
		}
		return fmt.Sprintf("%d KB", (n+512)/1024)
	},
}).Parse(pageHTML))

// plural writes "1 sheet", "2 sheets".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
