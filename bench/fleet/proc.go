package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// proc is a child process (the broker, a sink).
type proc struct {
	cmd     *exec.Cmd
	url     string
	metrics string     // a sink's /metrics
	cg      *cpuCgroup // -sink-cpu: the sink's CPU cgroup, else nil
}

func (p *proc) stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-done
	}
	p.cg.remove()
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// startMosquitto starts a broker for the run: no persistence, queues
// large enough that the sinks' backlog is never dropped; with ids, a
// TLS listener that requires a certificate and applies the ACL.
func startMosquitto(dir string, ids *fleetPKI) (*proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "mosquitto.conf")
	body := fmt.Sprintf("listener %d 127.0.0.1\nmax_queued_messages 1000000\nmax_inflight_messages 64\n"+
		"persistence false\nlog_type error\n", port)
	scheme := "tcp"
	if ids != nil {
		// Started by root, mosquitto would drop to the mosquitto user,
		// which cannot read the run's keys.
		if u, err := user.Current(); err == nil {
			body += "user " + u.Username + "\n"
		}
		body += ids.mosquittoConf()
		scheme = "ssl"
	} else {
		body += "allow_anonymous true\n"
	}
	if err := os.WriteFile(conf, []byte(body), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command("mosquitto", "-c", conf)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("mosquitto: %w (install it: apt-get install mosquitto)", err)
	}
	p := &proc{cmd: cmd, url: fmt.Sprintf("%s://127.0.0.1:%d", scheme, port)}
	return p, waitPort(port, p)
}

func waitPort(port int, p *proc) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond) // a child process coming up: only its port tells
	}
	p.stop()
	return fmt.Errorf("port %d never listened", port)
}

// listening is the log line of a sink's /metrics listener.
var listening = regexp.MustCompile(`http listening addr=(\S+)`)

// startSink starts `edged sink` number i of the group.
func startSink(o options, dir string, i int, ids *fleetPKI) (*proc, error) {
	args := []string{"sink", "--broker", o.broker, "--out", o.out, "--group", "fleet", "--id", fmt.Sprint("fleet-sink-", i),
		"--listen", "127.0.0.1:0"}
	if ids != nil {
		args = append(args, ids.sinkArgs()...)
	}
	if o.profile != "" {
		if err := os.MkdirAll(o.profile, 0o755); err != nil {
			return nil, err
		}
		args = append(args, "--cpuprofile", filepath.Join(o.profile, fmt.Sprintf("sink-%d.pprof", i)))
	}
	cmd := exec.Command(o.edged, args...)
	if o.sinkCores > 0 {
		cmd.Env = append(os.Environ(), fmt.Sprint("GOMAXPROCS=", o.sinkCores))
	}
	logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("sink-%d.log", i))) // kept with -keep-logs
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w (make build first, or pass -edged)", o.edged, err)
	}
	p := &proc{cmd: cmd}
	if o.sinkCPU > 0 {
		// Named by the run's directory: -compare runs two fleets at once.
		p.cg, err = limitCPU(fmt.Sprintf("%s-sink-%d", filepath.Base(dir), i), cmd.Process.Pid, o.sinkCPU)
		if err != nil {
			p.stop()
			return nil, err
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(logf.Name())
		if m := listening.FindSubmatch(b); m != nil && strings.Contains(string(b), "sink: receiving") {
			p.metrics = "http://" + string(m[1]) + "/metrics"
			return p, nil
		}
		time.Sleep(20 * time.Millisecond) // a child process subscribing: only its log tells
	}
	p.stop()
	b, _ := os.ReadFile(logf.Name())
	return nil, fmt.Errorf("sink %d did not subscribe: %s", i, b)
}

// cpuOf returns each process's user+system CPU seconds (/proc/PID/stat).
func cpuOf(ps []*proc) []float64 {
	out := make([]float64, len(ps))
	for i, p := range ps {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) < 13 {
			continue
		}
		u, _ := strconv.ParseFloat(f[11], 64)
		k, _ := strconv.ParseFloat(f[12], 64)
		out[i] = (u + k) / 100 // USER_HZ
	}
	return out
}

// periodsOf returns each sink's CFS periods and throttled periods so
// far (-sink-cpu; zeros without).
func periodsOf(ps []*proc) (all, throttled []float64) {
	all, throttled = make([]float64, len(ps)), make([]float64, len(ps))
	for i, p := range ps {
		if p.cg != nil {
			all[i], throttled[i] = p.cg.periods()
		}
	}
	return all, throttled
}
