package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// cfsPeriod is the CFS bandwidth period of a sink's cgroup, in µs (the
// kernel's default): a quota of q cores is q x cfsPeriod µs per period.
const cfsPeriod = 100_000

// cpuCgroup is a CPU cgroup of its own for one sink, holding it to a
// fraction of a core (-sink-cpu). This is how a 2-core machine can give
// each of two sinks "a core" of the same size that nothing else takes
// (a quota), with the broker and the robots on what is left; the
// figures then scale with the quota.
type cpuCgroup struct{ dir string }

// limitCPU makes a cgroup named name limited to cores of CPU and moves
// pid (all its threads) into it. cgroup v2 (cpu.max) and v1
// (cpu.cfs_quota_us) are both handled; it needs root.
func limitCPU(name string, pid int, cores float64) (*cpuCgroup, error) {
	quota := strconv.Itoa(int(cores * cfsPeriod))
	var g cpuCgroup
	var files [][2]string
	switch {
	case exists("/sys/fs/cgroup/cgroup.controllers"): // v2
		root := "/sys/fs/cgroup"
		// The cpu controller must be enabled for the root's children.
		_ = os.WriteFile(filepath.Join(root, "cgroup.subtree_control"), []byte("+cpu"), 0)
		g.dir = filepath.Join(root, name)
		files = [][2]string{{"cpu.max", quota + " " + strconv.Itoa(cfsPeriod)}}
	case exists("/sys/fs/cgroup/cpu/cpu.cfs_quota_us"): // v1
		g.dir = filepath.Join("/sys/fs/cgroup/cpu", name)
		files = [][2]string{{"cpu.cfs_period_us", strconv.Itoa(cfsPeriod)}, {"cpu.cfs_quota_us", quota}}
	default:
		return nil, errors.New("-sink-cpu: no CPU cgroup controller under /sys/fs/cgroup (run without -sink-cpu)")
	}
	if err := os.Mkdir(g.dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("-sink-cpu: %w (it needs root and a writable cgroup tree)", err)
	}
	files = append(files, [2]string{"cgroup.procs", strconv.Itoa(pid)})
	for _, f := range files {
		if err := os.WriteFile(filepath.Join(g.dir, f[0]), []byte(f[1]), 0); err != nil {
			g.remove()
			return nil, fmt.Errorf("-sink-cpu: %s: %w", f[0], err)
		}
	}
	return &g, nil
}

// remove deletes the cgroup; its process must have exited.
func (g *cpuCgroup) remove() {
	if g != nil {
		_ = os.Remove(g.dir)
	}
}

// periods returns the cgroup's CFS periods so far and how many of them
// the quota ran out in (cpu.stat): a sink throttled in most periods was
// saturated.
func (g *cpuCgroup) periods() (all, throttled float64) {
	b, err := os.ReadFile(filepath.Join(g.dir, "cpu.stat"))
	if err != nil {
		return 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) != 2 {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "nr_periods":
			all = v
		case "nr_throttled":
			throttled = v
		}
	}
	return all, throttled
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
