package daemon

import (
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/http/pprof"
	"regexp"
	"time"

	"github.com/edged-robotics/edged/capture"
	"github.com/edged-robotics/edged/internal/httpserve"
	"github.com/edged-robotics/edged/pipeline"
	"github.com/edged-robotics/edged/uplink"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// serveHTTP starts /metrics, /healthz, /status.json, /sheet/N.jpg and
// the status page on http.listen, with /debug/pprof/ when http.pprof;
// "off" serves nothing. The returned function shuts the server down and
// waits.
func (d *Daemon) serveHTTP() (stop func(), err error) {
	if d.cfg.HTTP.Listen == "off" {
		return func() {}, nil
	}
	_, stop, err = httpserve.Start(d.cfg.HTTP.Listen, "http.listen", d.handler(), d.log)
	return stop, err
}

// goCPUClasses: the runtime's own CPU accounting (runtime/metrics
// /cpu/classes/..., as go_cpu_classes_*_cpu_seconds_total), so that the
// runtime's share of edged's CPU (GC, scavenger, idle) can be read off
// /metrics (scripts/soak.sh does).
var goCPUClasses = collectors.WithGoCollectorRuntimeMetrics(collectors.GoRuntimeMetricsRule{Matcher: regexp.MustCompile(`^/cpu/classes/`)})

func (d *Daemon) handler() http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collector{d}, d.buildTime, collectors.NewGoCollector(goCPUClasses),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", d.handleHealth)
	mux.HandleFunc("GET /status.json", d.handleStatusJSON)
	mux.HandleFunc("GET /sheet/{cam}", d.handleSheet)
	mux.HandleFunc("POST /clip", d.handleClip)  // clips.go
	mux.HandleFunc("GET /clips", d.handleClips) // clipserve.go
	mux.HandleFunc("GET /clips/{episode}/{name}", d.handleClipFile)
	mux.HandleFunc("GET /{$}", d.handlePage)
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	if d.cfg.HTTP.Pprof {
		servePprof(mux)
	}
	return mux
}

// servePprof adds Go's profiler under /debug/pprof/ (its index lists
// the named profiles, heap and goroutine among them). A CPU profile or
// trace must end within the server's write timeout
// (httpserve.DefaultTimeouts, 30 s): ?seconds=20.
func servePprof(mux *http.ServeMux) {
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
}

// health says whether edged is ready: the master answers and capture
// runs. Problems are listed so an operator sees why.
func (d *Daemon) health() (ok bool, problems []string) {
	if d.node != nil && !d.node.MasterUp() {
		problems = append(problems, "ros master "+d.node.Status().MasterURI+" does not answer")
	}
	if d.capt.Load() == nil {
		problems = append(problems, "capture not started")
	}
	problems = append(problems, d.pipe.StoreProblems()...)
	if up := d.pipe.Uplink(); up != nil {
		if u := up.Stats(); float64(u.Outbox.PendingBytes) > 0.95*float64(d.cfg.Uplink.OutboxBytes) {
			problems = append(problems, fmt.Sprintf("outbox nearly full (%d messages waiting): sheets are being evicted", u.Outbox.Pending))
		}
	}
	return len(problems) == 0, problems
}

func (d *Daemon) handleHealth(w http.ResponseWriter, _ *http.Request) {
	_, problems := d.health()
	httpserve.Health(w, problems)
}

// pageData is everything the status page and status.json show.
type pageData struct {
	Robot    string                `json:"robot"`
	Version  string                `json:"version"`
	Node     string                `json:"node"`
	Master   string                `json:"master,omitempty"`    // ROS1's master URI; ROS 2 has none
	MasterUp *bool                 `json:"master_up,omitempty"` // ROS1: whether the master answers
	Ready    bool                  `json:"ready"`
	Problems []string              `json:"problems,omitempty"`
	Status   pipeline.StatusView   `json:"status"`
	Topics   []capture.TopicStats  `json:"topics"`
	Sheets   uint64                `json:"sheets"`
	Segments uint64                `json:"segments"`
	Backlog  int                   `json:"backlog"`
	MQTT     bool                  `json:"mqtt_connected"`
	Checks   []pipeline.CheckCount `json:"checks,omitempty"` // verdicts per check since start
	// Awaiting: ended episodes the receiver has not acknowledged, oldest
	// first (at most maxAwaitingShown).
	Awaiting []uplink.Awaiting `json:"awaiting,omitempty"`
}

// maxAwaitingShown bounds the episodes awaiting acknowledgement that the
// status page lists (/metrics counts them all).
const maxAwaitingShown = 20

func (d *Daemon) pageData() pageData {
	ready, problems := d.health()
	st := d.pipe.Stats()
	p := pageData{Robot: d.cfg.RobotID, Version: d.opts.Version, Ready: ready, Problems: problems, Status: d.pipe.Status().View(),
		Sheets: st.Sheets, Segments: st.Segments, Checks: d.pipe.Checks()}
	d.setGraph(&p)
	if c := d.capt.Load(); c != nil {
		p.Topics = c.Stats()
	}
	if up := d.pipe.Uplink(); up != nil {
		u := up.Stats()
		p.Backlog, p.MQTT = u.Outbox.Pending, u.Publisher.Connected
		aw := up.Awaiting()
		p.Awaiting = aw[:min(len(aw), maxAwaitingShown)]
	}
	return p
}

func (d *Daemon) handleStatusJSON(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(d.pageData())
}

// handleSheet serves the latest sheet of the camera at index {cam} of
// the status view's Sheets.
func (d *Daemon) handleSheet(w http.ResponseWriter, r *http.Request) {
	v := d.pipe.Status().View()
	var i int
	if _, err := fmt.Sscanf(r.PathValue("cam"), "%d.jpg", &i); err != nil || i < 0 || i >= len(v.Sheets) {
		http.NotFound(w, r)
		return
	}
	snap, ok := d.pipe.Status().Sheet(v.Sheets[i])
	if !ok {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(snap.JPEG)
}

func (d *Daemon) handlePage(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := statusPage.Execute(w, d.pageData()); err != nil {
		d.log.Warn("daemon: status page", "err", err)
	}
}

var statusPage = template.Must(template.New("status").Funcs(template.FuncMap{
	"secs": func(t time.Time) string { return t.UTC().Format("15:04:05.000") },
	"age":  func(t time.Time) string { return time.Since(t).Round(time.Second).String() },
	"up":   func(b *bool) bool { return *b },
	"few":  func(s []string) []string { return s[:min(len(s), 5)] },
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
<title>edged {{.Robot}}</title>
<style>
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}h2{font-size:1.05em;margin-top:1.4em}
table{border-collapse:collapse}td,th{padding:2px 10px;border-bottom:1px solid #ddd;text-align:left}
.ok{color:#080}.bad{color:#b00}.state{font-size:1.4em;font-weight:600}
img{max-width:100%;border:1px solid #ccc}
</style></head><body>
<h1>edged &middot; {{.Robot}} <small>{{.Version}}</small></h1>
<p id="health">{{if .Ready}}<span class="ok">ready</span>{{else}}<span class="bad">not ready</span>: {{range .Problems}}{{.}}; {{end}}{{end}}
&middot; node {{.Node}}{{with .MasterUp}} &middot; master {{$.Master}} {{if up .}}<span class="ok">up</span>{{else}}<span class="bad">down</span>{{end}}{{end}}</p>
<h2>Task state</h2>
<div id="fsm">{{range .Status.States}}<div><span class="state">{{.State}}</span> on {{.Source}} since {{secs .Since}}</div>{{else}}<p>no FSM state yet</p>{{end}}</div>
<p id="episode">{{if .Status.Open}}recording episode {{.Status.Episode.ID}}{{else if .Status.Episode.ID}}last episode {{.Status.Episode.ID}} ({{.Status.Episode.Outcome}}){{else}}no episode yet{{end}}
&middot; {{.Segments}} segments, {{.Sheets}} sheets</p>
<p id="uplink">uplink: {{.Backlog}} messages waiting &middot; MQTT {{if .MQTT}}<span class="ok">connected</span>{{else}}not connected{{end}}</p>
{{if .Awaiting}}<h2>Awaiting the receiver</h2><table id="awaiting"><tr><th>episode</th><th>waiting</th><th>kept</th><th>end sent again</th><th>receiver lacks</th></tr>
{{range .Awaiting}}<tr><td>{{.Episode}}</td><td>{{age .Since}}</td><td>{{.Held}} messages</td><td>{{.Resends}}</td><td{{if .Unavailable}} class="bad"{{end}}>{{range few .Lacks}}{{.}} {{end}}{{if or .More (gt (len .Lacks) 5)}}&hellip;{{end}}{{if .Unavailable}} ({{len .Unavailable}} no longer held){{end}}</td></tr>{{end}}</table>{{end}}
{{if .Status.Recent}}<h2>Recent segments</h2><table id="segments"><tr><th>#</th><th>start</th><th>end</th><th>label</th><th>outcome</th></tr>
{{range .Status.Recent}}<tr><td>{{.Index}}</td><td>{{printf "%.2f" .StartSec}}s</td><td>{{printf "%.2f" .EndSec}}s</td><td>{{.Label}}</td><td>{{.Outcome}}</td></tr>{{end}}</table>{{end}}
{{if .Checks}}<h2>Trace checks</h2><table id="checks"><tr><th>check</th><th>SAT</th><th>UNSAT</th></tr>
{{range .Checks}}<tr><td>{{.Check}}</td><td>{{.Sat}}</td><td{{if .Unsat}} class="bad"{{end}}>{{.Unsat}}</td></tr>{{end}}</table>
<table id="verdicts"><tr><th>episode</th><th>check</th><th>verdict</th><th>witness</th></tr>
{{range .Status.Judged}}{{$ep := .Episode}}{{range .Verdicts}}<tr><td>{{$ep}}</td><td>{{.Check}}</td><td>{{if .Sat}}<span class="ok">SAT</span>{{else}}<span class="bad">UNSAT</span>{{end}}</td><td>{{.Witness}}</td></tr>{{end}}{{else}}<tr><td colspan="4">no episode closed yet</td></tr>{{end}}</table>{{end}}
<h2>Topics</h2><table id="topics"><tr><th>topic</th><th>role</th><th>type</th><th>messages</th><th>drops</th><th>decode errors</th><th>publishers</th></tr>
{{range .Topics}}<tr><td>{{.Topic}}</td><td>{{.Role}}</td><td>{{.Type}}</td><td>{{.Messages}}</td><td>{{.Drops}}</td><td>{{.DecodeErrors}}</td><td>{{.Publishers}}</td></tr>{{end}}</table>
<h2>Latest sheets</h2>
{{range $i, $c := .Status.Sheets}}<figure><img src="/sheet/{{$i}}.jpg" alt="latest sheet of {{$c}}"><figcaption>{{$c}}</figcaption></figure>{{else}}<p>no sheet yet</p>{{end}}
</body></html>
`))
