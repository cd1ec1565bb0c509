package replay_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/replay"
)

const sampleBag = "/work/shared/data/g1_ep29.bag"

// damagedCopies writes two damaged copies of the sample bag into dir:
// one cut at half its size, one whose first chunk's data is garbled.
func damagedCopies(t *testing.T, dir string) (half, garbled string) {
	t.Helper()
	b, err := os.ReadFile(sampleBag)
	if err != nil {
		t.Skipf("sample bag %s absent (it lives outside the repository): %v", sampleBag, err)
	}
	half, garbled = filepath.Join(dir, "half.bag"), filepath.Join(dir, "garbled.bag")
	if err := os.WriteFile(half, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	// The first chunk record of g1_ep29.bag starts at 4117 with a 41-byte
	// header: its data begins at 4117+4+41+4. Garble bytes inside it.
	g := append([]byte(nil), b...)
	for i := 4166 + 100; i < 4166+2000; i++ {
		g[i] ^= 0x5a
	}
	if err := os.WriteFile(garbled, g, 0o644); err != nil {
		t.Fatal(err)
	}
	return half, garbled
}

// TestReplayReportsDamagedBags: a bag cut at half, or with a corrupt
// first chunk, is replayed as far as it can be read and reported
// (replay.ErrDamagedInput, each problem naming the bag and an offset); it used
// to end "successfully" with half the messages (issue 10).
func TestReplayReportsDamagedBags(t *testing.T) {
	half, garbled := damagedCopies(t, t.TempDir())
	for _, tc := range []struct {
		name, bag string
		minMsgs   uint64
	}{
		{"cut at half", half, 300},
		{"first chunk garbled", garbled, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := config.Default()
			c.RobotID, c.DataDir, c.HTTP.Listen = "replay", t.TempDir(), "off"
			d, err := replay.New(&c, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			sum, err := d.Run(context.Background(), []string{tc.bag}, nil)
			if !errors.Is(err, replay.ErrDamagedInput) {
				t.Fatalf("Replay = %v, want replay.ErrDamagedInput", err)
			}
			if len(sum.Damage) == 0 || sum.Messages < tc.minMsgs {
				t.Fatalf("summary %+v", sum)
			}
			for _, p := range sum.Damage {
				if !strings.Contains(p, tc.bag) || !strings.Contains(p, "offset") {
					t.Errorf("problem does not name the bag and an offset: %s", p)
				}
			}
		})
	}
	// An intact bag is no damage.
	c := config.Default()
	c.RobotID, c.DataDir, c.HTTP.Listen = "replay", t.TempDir(), "off"
	d, err := replay.New(&c, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum, err := d.Run(context.Background(), []string{sampleBag}, nil); err != nil || len(sum.Damage) != 0 || sum.Messages == 0 {
		t.Fatalf("intact bag: %+v %v", sum, err)
	}
}
