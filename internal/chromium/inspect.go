package chromium

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Page is what headless Chromium saw of an HTTP page.
type Page struct {
	// DOM after the scripts ran (with the probe's data attributes on
	// <html>).
	DOM string
	// Images counts <img> elements whose image decoded (complete and
	// naturalWidth > 0) and those that did not, when the DOM was dumped.
	ImagesLoaded, ImagesBroken int
	// Requests lists "METHOD /path?query STATUS" for every request the
	// page made to its own origin, in order (the page itself first).
	Requests []string
}

// maxInjectBytes caps an HTML response the proxy rewrites.
const maxInjectBytes = 32 << 20

// probe keeps two attributes on <html> up to date with the state of the
// page's images, including ones a script swaps in later.
const probe = `<script>(function(){function p(){var i,ok=0,bad=0,im=document.images;` +
	`for(i=0;i<im.length;i++){if(im[i].complete&&im[i].naturalWidth>0){ok++}else{bad++}}` +
	`var d=document.documentElement;d.setAttribute("data-chromium-images-loaded",ok);` +
	`d.setAttribute("data-chromium-images-broken",bad)}` +
	`window.addEventListener("load",p);setInterval(p,50);p()})();</script>`

// Inspect loads an http(s) url in headless Chromium through a recording
// proxy on 127.0.0.1 that serves the page from its own origin and adds a
// probe script to every HTML response, so the result says which images
// decoded and what the page fetched. Give o.VirtualTime to let a page's
// polling scripts run (e.g. 2 s for a status page that refreshes every
// second).
func Inspect(ctx context.Context, target string, o Options) (*Page, error) {
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("chromium: Inspect needs an http(s) URL, got %q", target)
	}
	rec := &recorder{}
	origin := &url.URL{Scheme: u.Scheme, Host: u.Host}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(origin)
			r.Out.Host = u.Host
			r.Out.Header.Del("Accept-Encoding") // bodies come back plain, to inject into
		},
		ModifyResponse: func(res *http.Response) error {
			rec.add(res.Request.Method + " " + res.Request.URL.RequestURI() + " " + strconv.Itoa(res.StatusCode))
			return injectProbe(res)
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			rec.add(r.Method + " " + r.URL.RequestURI() + " error: " + err.Error())
			http.Error(w, err.Error(), http.StatusBadGateway)
		},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("chromium: proxy: %w", err)
	}
	srv := &http.Server{Handler: rp}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	defer func() { _ = srv.Close(); <-done }()

	via := *u
	via.Scheme, via.Host = "http", ln.Addr().String()
	dom, err := DumpDOMWith(ctx, via.String(), o)
	if err != nil {
		return nil, err
	}
	p := &Page{DOM: dom, Requests: rec.list()}
	var ok bool
	if p.ImagesLoaded, ok = htmlAttrInt(dom, "data-chromium-images-loaded"); !ok {
		return p, fmt.Errorf("chromium: %s: the probe did not run (not an HTML page, or scripts failed); requests: %v", target, p.Requests)
	}
	p.ImagesBroken, _ = htmlAttrInt(dom, "data-chromium-images-broken")
	return p, nil
}

var (
	bodyEnd = regexp.MustCompile(`(?i)</body\s*>`)
	metaCSP = regexp.MustCompile(`(?i)<meta[^>]+http-equiv\s*=\s*["']?content-security-policy["']?[^>]*>`)
)

func injectProbe(res *http.Response) error {
	if !strings.HasPrefix(strings.ToLower(res.Header.Get("Content-Type")), "text/html") {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(res.Body, maxInjectBytes+1))
	res.Body.Close()
	if err != nil {
		return err
	}
	if len(b) > maxInjectBytes {
		return fmt.Errorf("HTML page larger than %d bytes", maxInjectBytes)
	}
	b = metaCSP.ReplaceAll(b, nil) // the probe is an inline script
	if loc := bodyEnd.FindIndex(b); loc != nil {
		b = append(b[:loc[0]:loc[0]], append([]byte(probe), b[loc[0]:]...)...)
	} else {
		b = append(b, probe...)
	}
	res.Body = io.NopCloser(bytes.NewReader(b))
	res.ContentLength = int64(len(b))
	res.Header.Set("Content-Length", strconv.Itoa(len(b)))
	res.Header.Del("Content-Security-Policy") // the probe is an inline script
	return nil
}

func htmlAttrInt(dom, name string) (int, bool) {
	m := regexp.MustCompile(`<html[^>]*\s` + regexp.QuoteMeta(name) + `="([0-9]+)"`).FindStringSubmatch(dom)
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

type recorder struct {
	mu   sync.Mutex
	reqs []string
}

func (r *recorder) add(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) < 10000 {
		r.reqs = append(r.reqs, s)
	}
}

func (r *recorder) list() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reqs...)
}
