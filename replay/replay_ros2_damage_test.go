package replay_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/internal/sampledata"
	"github.com/edged-robotics/edged/replay"
)

// TestReplayDamagedMCAP: a cut or corrupt MCAP file is replayed as far as
// it can be read and reported (replay.ErrDamagedInput, the file and an offset).
func TestReplayDamagedMCAP(t *testing.T) {
	data, err := os.ReadFile(sampledata.Path(t, "ros2/g1_ep29_mcap/g1_ep29_mcap_0.mcap"))
	if err != nil {
		t.Fatal(err)
	}
	corrupt := append([]byte(nil), data...)
	for i := len(data) / 2; i < len(data)/2+64; i++ {
		corrupt[i] ^= 0xff
	}
	for name, b := range map[string][]byte{"cut.mcap": data[:len(data)/2], "corrupt.mcap": corrupt} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			c := config.Default()
			c.RobotID, c.DataDir, c.HTTP.Listen = "replay", t.TempDir(), "off"
			d, err := replay.New(&c, replay.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := d.Run(context.Background(), []string{path}, nil)
			if !errors.Is(err, replay.ErrDamagedInput) || sum.Messages == 0 || len(sum.Damage) == 0 {
				t.Fatalf("Replay = %+v, %v; want messages and replay.ErrDamagedInput", sum, err)
			}
			if p := strings.Join(sum.Damage, "\n"); !strings.Contains(p, path) || !strings.Contains(p, "offset") {
				t.Errorf("problem does not name the file and an offset: %s", p)
			}
		})
	}
}

// TestReplayDataSectionCRC: a ROS 2 MCAP bag whose data section fails
// its CRC (a byte of the header's library name changed: nothing else
// covers it) replays, and the replay reports the damage with the offset.
func TestReplayDataSectionCRC(t *testing.T) {
	dir := sampledata.Copy(t, "ros2/g1_ep29_mcap")
	file := filepath.Join(dir, "g1_ep29_mcap_0.mcap")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	hdrLen := binary.LittleEndian.Uint64(b[9:]) // after the magic and the opcode
	b[8+9+int(hdrLen)-1] ^= 0x20
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse([]byte("robot_id: g1\nfsm: [{topic: /task_state, type: string, idle_states: [idle, done]}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DataDir, cfg.HTTP.Listen = t.TempDir(), "off"
	d, err := replay.New(cfg, replay.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := d.Run(context.Background(), []string{dir}, nil)
	if !errors.Is(err, replay.ErrDamagedInput) || sum.Messages == 0 {
		t.Fatalf("replay: %d messages, %v; want all and replay.ErrDamagedInput", sum.Messages, err)
	}
	if len(sum.Damage) != 1 || !strings.Contains(sum.Damage[0], "data section CRC mismatch") || !strings.Contains(sum.Damage[0], "at byte offset") {
		t.Fatalf("damage %q", sum.Damage)
	}
}
