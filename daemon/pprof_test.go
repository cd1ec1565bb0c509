package daemon

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/config"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// TestPprofOnlyWhenOn: /debug/pprof/ answers on http.listen only with
// http.pprof: true (it exposes the process's internals; off by default).
func TestPprofOnlyWhenOn(t *testing.T) {
	for _, tc := range []struct {
		name string
		yaml string
		want int
	}{
		{"default", "robot_id: r\n", http.StatusNotFound},
		{"off", "robot_id: r\nhttp: {pprof: false}\n", http.StatusNotFound},
		{"on", "robot_id: r\nhttp: {pprof: true}\n", http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tc.yaml))
			if err != nil {
				t.Fatal(err)
			}
			d := &Daemon{cfg: *cfg, buildTime: newSheetBuildHistogram()}
			h := d.handler()
			for _, path := range []string{"/debug/pprof/", "/debug/pprof/goroutine?debug=1", "/debug/pprof/cmdline"} {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
				if rec.Code != tc.want {
					t.Errorf("GET %s: %d, want %d", path, rec.Code, tc.want)
				}
			}
		})
	}
}

// TestGoCPUClassesExported: /metrics carries the runtime's CPU classes,
// from which the soak computes the runtime's share of edged's CPU.
func TestGoCPUClassesExported(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(goCPUClasses))
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, mf := range mfs {
		names = append(names, mf.GetName())
	}
	all := strings.Join(names, " ")
	for _, want := range []string{"go_cpu_classes_total_cpu_seconds_total", "go_cpu_classes_idle_cpu_seconds_total",
		"go_cpu_classes_gc_total_cpu_seconds_total", "go_cpu_classes_user_cpu_seconds_total"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %s among %s", want, all)
		}
	}
}
