// Package chromium drives Debian's headless Chromium (package chromium,
// /usr/bin/chromium) for tests that must see a page the way a browser
// does: the report HTML of package report and the daemon's status page.
//
// Every run starts a fresh Chromium with --headless, --no-sandbox,
// --disable-gpu, --disable-quic, --no-first-run and every background
// service off (networking, component updates, sync, proxies, crash
// reports), in a new --user-data-dir and HOME under a temporary
// directory that is removed afterwards. Without those flags Chromium
// tries to reach Google services, which on a closed network means a
// flood of failing connections.
//
// A run is bounded by its context and by Options.Timeout; Chromium and
// every helper process it spawned (renderer, zygote, utility) share a
// process group, which is killed when the call returns, whatever
// happened. Output goes to files, not pipes, so a surviving helper can
// never hold a call open.
//
// DumpDOM returns the serialized DOM after the page's load event and, when
// Options.VirtualTime is set, after that much virtual time (timers and
// fetches started by scripts) has run. Screenshot writes a PNG.
//
// Inspect loads an http(s) page through a recording reverse proxy on
// 127.0.0.1 that injects a probe script into HTML responses (and drops
// their Content-Security-Policy so it may run): the result is the DOM,
// how many <img> decoded and how many did not, and every request the page
// made to its origin. That is how the daemon's status page is checked.
//
// For tests: Require skips a test (naming the package and `make deps`)
// when Chromium is not installed, and LoadDOM / TakeScreenshot wrap the
// calls with a deadline and t.Fatal; LoadPage and PollPage do the same for
// Inspect (PollPage reloads until a condition holds, instead of sleeping). Calls are safe for concurrent use;
// each starts its own browser.
package chromium
