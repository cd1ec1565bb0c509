package store

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
)

// The crash test runs this test binary as a child that writes episodes
// as fast as it can and prints every acknowledgment (a segment or an
// episode close that returned); the parent SIGKILLs it at a random
// moment, reopens the store and checks that everything acknowledged is
// there and nothing is left open.
const crashChildEnv = "EDGED_EPISODE_CRASH_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(crashChildEnv); dir != "" {
		crashChild(dir)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func crashChild(dir string) {
	out := bufio.NewWriter(os.Stdout)
	ack := func(format string, a ...any) {
		fmt.Fprintf(out, format+"\n", a...)
		out.Flush()
	}
	s, err := Open(dir, Options{MaxBytes: -1, MaxEpisodes: -1})
	if err != nil {
		ack("error %v", err)
		return
	}
	ack("ready")
	r := rand.New(rand.NewPCG(uint64(os.Getpid()), uint64(time.Now().UnixNano())))
	start := time.Now()
	for ep := 0; ; ep++ {
		t := at(float64(time.Since(start).Milliseconds()))
		w, err := s.Begin(Begin{Robot: "crash", Start: t, Name: strconv.Itoa(os.Getpid()) + "-" + strconv.Itoa(ep)})
		if err != nil {
			ack("error %v", err)
			return
		}
		n := 1 + r.IntN(6)
		prev := "idle"
		for k := range n {
			label := fmt.Sprintf("state%d", k)
			b := t.Add(time.Duration(k) * time.Second)
			_ = w.Transition(episode.Transition{Stamp: b, Kind: episode.TransitionState, Source: "/s", From: prev, To: label, Opens: label, Path: label})
			for h := range r.IntN(3) {
				_ = w.Transition(episode.Transition{Stamp: b.Add(time.Duration(h+1) * 100 * time.Millisecond), Kind: episode.TransitionHeartbeat, Source: "/s"})
			}
			if err := w.Segment(episode.Segment{Start: b, End: b.Add(time.Second), Label: label, Path: label, Source: "/s", Kind: "string", Outcome: episode.Completed}); err != nil {
				ack("error %v", err)
				return
			}
			ack("seg %s %d %s", w.ID(), k, label)
			prev = label
		}
		// Sometimes leave a segment open when the kill comes.
		_ = w.Transition(episode.Transition{Stamp: t.Add(time.Duration(n) * time.Second), Source: "/s", From: prev, To: "last", Opens: "last", Path: "last"})
		if err := w.Segment(episode.Segment{Start: t.Add(time.Duration(n) * time.Second), End: t.Add(time.Duration(n+1) * time.Second), Label: "last", Path: "last", Source: "/s", Kind: "string", Outcome: episode.Completed}); err != nil {
			ack("error %v", err)
			return
		}
		ack("seg %s %d last", w.ID(), n)
		if err := w.Close(t.Add(time.Duration(n+1)*time.Second), episode.Completed, episode.EndIdle); err != nil {
			ack("error %v", err)
			return
		}
		ack("closed %s", w.ID())
	}
}

type acked struct {
	segs   map[string]map[int]string // episode -> index -> label
	closed map[string]bool
}

func crashRounds() int {
	if os.Getenv("EDGED_SOAK") != "" {
		return 300
	}
	if testing.Short() {
		return 8
	}
	return 25
}

func TestCrashSIGKILL(t *testing.T) {
	dir := t.TempDir()
	acks := acked{segs: map[string]map[int]string{}, closed: map[string]bool{}}
	r := rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano())))
	rounds := crashRounds()
	for round := range rounds {
		runAndKill(t, dir, time.Duration(r.IntN(40))*time.Millisecond, &acks)
		checkStore(t, dir, &acks, round)
	}
	n := 0
	for _, m := range acks.segs {
		n += len(m)
	}
	t.Logf("%d kills, %d acknowledged segments, %d closed episodes: all present", rounds, n, len(acks.closed))
	if n == 0 {
		t.Fatal("the child acknowledged nothing: the test proved nothing")
	}
}

func runAndKill(t *testing.T, dir string, after time.Duration, acks *acked) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	lines := make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(10 * time.Second)
	var killed bool
	var timer <-chan time.Time
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				_ = cmd.Wait()
				if !killed {
					t.Fatal("crash child exited before it was killed")
				}
				return
			}
			record(t, l, acks)
			if l == "ready" {
				timer = time.After(after)
			}
		case <-timer:
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			killed = true
			timer = nil
		case <-deadline:
			t.Fatal("crash child: no ready or no exit within 10s")
		}
	}
}

func record(t *testing.T, l string, acks *acked) {
	f := strings.Fields(l)
	switch {
	case len(f) == 4 && f[0] == "seg":
		idx, _ := strconv.Atoi(f[2])
		if acks.segs[f[1]] == nil {
			acks.segs[f[1]] = map[int]string{}
		}
		acks.segs[f[1]][idx] = f[3]
	case len(f) == 2 && f[0] == "closed":
		acks.closed[f[1]] = true
	case len(f) > 0 && f[0] == "error":
		t.Fatalf("crash child: %s", l)
	}
}

func checkStore(t *testing.T, dir string, acks *acked, round int) {
	t.Helper()
	s, err := Open(dir, Options{MaxBytes: -1, MaxEpisodes: -1})
	if err != nil {
		t.Fatalf("round %d: reopen: %v", round, err)
	}
	defer s.Close()
	ms, err := episode.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]episode.Manifest{}
	for _, m := range ms {
		byID[m.ID] = m
		if !m.Closed {
			t.Fatalf("round %d: %s still open after recovery", round, m.ID)
		}
	}
	for id := range acks.closed {
		if m, ok := byID[id]; !ok || m.Outcome != episode.Completed {
			t.Fatalf("round %d: closed episode %s lost or changed: %+v", round, id, m)
		}
	}
	for id, want := range acks.segs {
		e, err := episode.Load(dir, id)
		if err != nil {
			t.Fatalf("round %d: acknowledged episode %s: %v", round, id, err)
		}
		if len(e.Problems) > 0 {
			t.Fatalf("round %d: %s: problems after recovery: %v", round, id, e.Problems)
		}
		got := map[int]string{}
		for _, sg := range e.Segments {
			got[sg.Index] = sg.Label
		}
		for idx, label := range want {
			if got[idx] != label {
				t.Fatalf("round %d: %s: acknowledged segment %d (%s) lost; have %v", round, id, idx, label, got)
			}
		}
	}
}
