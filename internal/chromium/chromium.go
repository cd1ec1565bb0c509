package chromium

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/edged-robotics/edged/internal/fsutil"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ErrNotInstalled is returned when no Chromium binary is found.
var ErrNotInstalled = errors.New("chromium not installed (Debian package chromium; run `make deps`)")

// EnvBinary names an environment variable that overrides the binary.
const EnvBinary = "EDGED_CHROMIUM"

// started is a test hook: called with the process group id of each run.
var started func(pgid int)

// Defaults of Options.
const (
	DefaultWidth   = 1280
	DefaultHeight  = 900
	DefaultTimeout = 60 * time.Second
	// MaxDOMBytes caps what DumpDOM reads back.
	MaxDOMBytes = 64 << 20
)

// Options of one run. Zero fields take the defaults above.
type Options struct {
	Width, Height int // window size in CSS pixels
	// VirtualTime lets the page's timers and fetches run for this much
	// virtual time after load before the DOM is dumped or the screenshot
	// taken (--virtual-time-budget). 0: dump right after load. Keep it
	// shorter than a page's <meta http-equiv="refresh"> interval: a
	// reload inside the budget makes Chromium 156 never dump (the run
	// then fails at Timeout).
	VirtualTime time.Duration
	// Timeout bounds the whole run on top of the context.
	Timeout time.Duration
	// Flags are added after the fixed ones.
	Flags []string
}

func (o *Options) defaults() {
	if o.Width <= 0 {
		o.Width = DefaultWidth
	}
	if o.Height <= 0 {
		o.Height = DefaultHeight
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
}

// Path returns the Chromium binary: $EDGED_CHROMIUM, /usr/bin/chromium,
// or chromium / chromium-browser on PATH.
func Path() (string, error) {
	if p := os.Getenv(EnvBinary); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("%s=%s: %w", EnvBinary, p, err)
		}
		return p, nil
	}
	if st, err := os.Stat("/usr/bin/chromium"); err == nil && !st.IsDir() {
		return "/usr/bin/chromium", nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotInstalled
}

// baseFlags keep Chromium headless, unprivileged-safe and off the network
// except for the page it is told to load.
var baseFlags = []string{
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--no-default-browser-check",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
	"--disable-default-apps",
	"--disable-extensions",
	"--disable-domain-reliability",
	"--disable-breakpad",
	"--disable-crash-reporter",
	"--disable-client-side-phishing-detection",
	"--disable-features=Translate,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication,CertificateTransparencyComponentUpdater",
	"--dns-prefetch-disable",
	"--no-proxy-server",
	"--metrics-recording-only",
	"--disable-dev-shm-usage",
	"--hide-scrollbars",
	"--mute-audio",
	"--password-store=basic",
	"--use-mock-keychain",
}

// DumpDOM loads url and returns the DOM serialized after the load event
// (see Options.VirtualTime to let scripts run longer).
func DumpDOM(ctx context.Context, url string) (string, error) {
	return DumpDOMWith(ctx, url, Options{})
}

// DumpDOMWith is DumpDOM with options.
func DumpDOMWith(ctx context.Context, url string, o Options) (string, error) {
	var dom string
	err := run(ctx, url, o, []string{"--dump-dom"}, func(dir, stdout string) error {
		b, err := fsutil.ReadFileCapped(stdout, MaxDOMBytes)
		if err != nil {
			return err
		}
		if len(bytes.TrimSpace(b)) == 0 {
			return errors.New("empty DOM")
		}
		dom = string(b)
		return nil
	})
	return dom, err
}

// Screenshot loads url in a width x height window and writes a PNG of
// the viewport to png.
func Screenshot(ctx context.Context, url, png string, width, height int) error {
	return ScreenshotWith(ctx, url, png, Options{Width: width, Height: height})
}

// ScreenshotWith is Screenshot with options (Width and Height from o).
func ScreenshotWith(ctx context.Context, url, png string, o Options) error {
	abs, err := filepath.Abs(png)
	if err != nil {
		return err
	}
	_ = os.Remove(abs)
	return run(ctx, url, o, []string{"--screenshot=" + abs}, func(string, string) error {
		st, err := os.Stat(abs)
		if err != nil {
			return fmt.Errorf("no screenshot written: %w", err)
		}
		if st.Size() < 8 {
			return fmt.Errorf("screenshot %s is empty", abs)
		}
		return nil
	})
}

// run starts Chromium on url with the base flags plus extra, waits for it
// and calls check with the temp dir and the stdout file; the process
// group is killed and the temp dir removed before it returns.
func run(ctx context.Context, url string, o Options, extra []string, check func(dir, stdout string) error) error {
	o.defaults()
	bin, err := Path()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	dir, err := os.MkdirTemp("", "edged-chromium-")
	if err != nil {
		return fmt.Errorf("chromium: %w", err)
	}
	defer os.RemoveAll(dir)
	stdoutPath, stderrPath := filepath.Join(dir, "stdout"), filepath.Join(dir, "stderr")
	cmd, err := launch(bin, o.args(dir, url, extra), dir, stdoutPath, stderrPath)
	if err != nil {
		return err
	}
	pgid := cmd.Process.Pid
	if started != nil {
		started(pgid)
	}
	defer syscall.Kill(-pgid, syscall.SIGKILL) // helpers that outlived the browser

	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case err = <-waited:
	case <-ctx.Done():
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-waited
		err = ctx.Err()
	}
	if err == nil {
		err = check(dir, stdoutPath)
	}
	if err != nil {
		return fmt.Errorf("chromium: %s: %w (stderr: %s)", url, err, tail(stderrPath))
	}
	return nil
}

// args are Chromium's command line: the base flags, a profile in dir,
// the window size and virtual time from o, o's and the caller's extra
// flags, and url last.
func (o *Options) args(dir, url string, extra []string) []string {
	args := append([]string(nil), baseFlags...)
	args = append(args, "--user-data-dir="+filepath.Join(dir, "profile"),
		"--window-size="+strconv.Itoa(o.Width)+","+strconv.Itoa(o.Height))
	if o.VirtualTime > 0 {
		args = append(args, "--virtual-time-budget="+strconv.FormatInt(o.VirtualTime.Milliseconds(), 10))
	}
	args = append(args, o.Flags...)
	args = append(args, extra...)
	return append(args, url)
}

// launch starts bin in a process group of its own, with dir as its home
// and working directory and its output in the files named.
func launch(bin string, args []string, dir, stdoutPath, stderrPath string) (*exec.Cmd, error) {
	stdout, err := os.Create(stdoutPath)
	if err != nil {
		return nil, fmt.Errorf("chromium: %w", err)
	}
	defer stdout.Close() // the child holds its own copy once started
	stderr, err := os.Create(stderrPath)
	if err != nil {
		return nil, fmt.Errorf("chromium: %w", err)
	}
	defer stderr.Close()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("chromium: start %s: %w", bin, err)
	}
	return cmd, nil
}

// tail returns the last lines of Chromium's stderr, for error messages.
func tail(path string) string {
	b, err := fsutil.ReadFileCapped(path, 16<<20)
	if err != nil {
		return "unreadable"
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 8 {
		lines = lines[len(lines)-8:]
	}
	s := strings.Join(lines, " | ")
	if s == "" {
		return "empty"
	}
	return s
}
