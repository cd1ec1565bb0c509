package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The CLI end to end, as a user runs it: the edged binary built once,
// then the offline commands over a generated episode (no master needed).

var edgedBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "edged-cli")
	if err != nil {
		panic(err)
	}
	edgedBin = filepath.Join(dir, "edged")
	if out, err := exec.Command("go", "build", "-o", edgedBin, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// edged runs the binary; it fails the test when the exit status is not
// wantOK's.
func edged(t *testing.T, wantOK bool, args ...string) string {
	t.Helper()
	out, err := exec.Command(edgedBin, args...).CombinedOutput()
	if (err == nil) != wantOK {
		t.Fatalf("edged %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestVersionAndConfigCheck(t *testing.T) {
	if out := edged(t, true, "version"); !strings.HasPrefix(out, "edged ") {
		t.Fatalf("version: %q", out)
	}
	if out := edged(t, true, "config", "check", "../../systemd/edged.yaml"); !strings.Contains(out, "is valid") {
		t.Fatalf("sample config: %s", out)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("robot_id: r\nsheet: {tile_width: 0, quality: 101}\n"), 0o644)
	out := edged(t, false, "config", "check", bad)
	for _, want := range []string{"sheet.tile_width: must be > 0", "sheet.quality: must be in 1..100"} {
		if !strings.Contains(out, want) {
			t.Errorf("config check of a bad file lacks %q:\n%s", want, out)
		}
	}
}

// TestOfflineTools: replay a generated bag, then inspect, export, score
// and report the episode it recorded.
func TestOfflineTools(t *testing.T) {
	if _, err := os.Stat("/usr/bin/python3"); err != nil {
		t.Skip("/usr/bin/python3 with rosbag needed to generate the sample episode (make deps)")
	}
	tmp := t.TempDir()
	bag := filepath.Join(tmp, "sim.bag")
	truth := filepath.Join(tmp, "truth.json")
	gen := exec.Command("/usr/bin/python3", "../../scripts/sim/sim_robot.py", "--bag", bag)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Skipf("cannot generate the sample bag (python3-rosbag missing? make deps): %v\n%s", err, out)
	}
	seg, err := exec.Command("/usr/bin/python3", "../../scripts/sim/sim_robot.py", "--segments").Output()
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(truth, seg, 0o644)
	data := filepath.Join(tmp, "data")

	out := edged(t, true, "replay", "-q", "--out", data, "--fsm", "/task/state", "--idle", "IDLE", bag)
	if !strings.Contains(out, "1 episodes, 6 segments, 2 sheets") {
		t.Fatalf("replay summary: %s", out)
	}
	var list []struct {
		ID       string `json:"id"`
		Segments int    `json:"segments"`
	}
	if err := json.Unmarshal([]byte(edged(t, true, "inspect", data, "--json")), &list); err != nil || len(list) != 1 || list[0].Segments != 6 {
		t.Fatalf("inspect --json: %+v %v", list, err)
	}
	id := list[0].ID
	if out := edged(t, true, "inspect", data, id); !strings.Contains(out, "retreat") {
		t.Fatalf("inspect timeline: %s", out)
	}
	var wgo struct {
		Segments []struct {
			Subtask string `json:"subtask"`
		} `json:"segments"`
	}
	if err := json.Unmarshal([]byte(edged(t, true, "export", id, "--dir", data, "--format", "wgo")), &wgo); err != nil || len(wgo.Segments) != 6 || wgo.Segments[0].Subtask != "reach" {
		t.Fatalf("export wgo: %+v %v", wgo, err)
	}
	var sc map[string]any
	if err := json.Unmarshal([]byte(edged(t, true, "score", "--truth", truth, "--pred", filepath.Join(data, "episodes", id), "--json")), &sc); err != nil {
		t.Fatalf("score --json: %v", err)
	}
	if out := edged(t, true, "score", "--truth", truth, "--pred", filepath.Join(data, "episodes", id)); !strings.Contains(out, "segment F1 @IoU0.75  1.000") {
		t.Fatalf("replayed FSM segments must score F1 1 against the generator's truth:\n%s", out)
	}
	report := filepath.Join(tmp, "report.html")
	edged(t, true, "report", id, "--dir", data, "--out", report, "--annotation", truth)
	html, _ := os.ReadFile(report)
	if !strings.Contains(string(html), "retreat") || !strings.Contains(string(html), "data:image/jpeg;base64,") {
		t.Fatalf("report lacks segments or inline sheets (%d bytes)", len(html))
	}
}

func TestSheetFromFiles(t *testing.T) {
	if _, err := exec.LookPath("/usr/bin/python3"); err != nil {
		t.Skip("/usr/bin/python3 needed to render frames (make deps)")
	}
	tmp := t.TempDir()
	var frames []string
	for i := 0; i < 6; i++ {
		p := filepath.Join(tmp, "f"+string(rune('0'+i))+".jpg")
		out, err := exec.Command("/usr/bin/python3", "../../scripts/sim/sim_robot.py", "--frame", string(rune('0'+i))).Output()
		if err != nil {
			t.Skipf("cannot render frames (python3-pil missing? make deps): %v", err)
		}
		os.WriteFile(p, out, 0o644)
		frames = append(frames, p)
	}
	outDir := filepath.Join(tmp, "sheets")
	out := edged(t, true, append([]string{"sheet", "--fps", "2", "--out", outDir}, frames...)...)
	if _, err := os.Stat(filepath.Join(outDir, "sheet-0001.jpg")); err != nil {
		t.Fatalf("no sheet written: %v\n%s", err, out)
	}
	var meta json.RawMessage
	b, err := os.ReadFile(filepath.Join(outDir, "sheets.json"))
	if err != nil || json.Unmarshal(b, &meta) != nil {
		t.Fatalf("sheets.json: %v", err)
	}
}
