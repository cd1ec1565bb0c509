package daemon

import (
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/fsm"
	"github.com/edged-robotics/edged/sheet"
	"github.com/edged-robotics/edged/uplink"
)

// TestConfigCheckAgreesWithRun: for every setting whose rule lived in
// two places, the value `edged config check` (Check) accepts is the
// value the component edged run builds from it accepts, and both
// refusals name the config key. They disagreed: a 30x30 sheet passed
// the check and built no sheets; config wanted an outbox of 16MiB and
// the uplink 1MiB (the uplink's rule, whose eviction its tests show
// working at 1MiB, is the one now), topic prefixes and bandwidths had two rule sets, a
// ring of 1000 bytes passed ringbuf (whose errors named
// ringbuf.max_bytes), and a recording topic without FSM sources passed
// the check but not fsm.New.
func TestConfigCheckAgreesWithRun(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       string // "" accepted; else what both errors contain
	}{
		{"defaults", "", ""},
		{"sheet 30x30", "sheet: {columns: 30, rows: 30}", "sheet.rows: columns x rows must be <= 400"},
		{"sheet 20x20", "sheet: {columns: 20, rows: 20, tile_width: 64}", ""},
		{"ring 1000 bytes", "ring: {max_bytes: 1000}", "ring.max_bytes: must be >= 1MiB"},
		{"ring 0 bytes", "ring: {max_bytes: 0}", "ring.max_bytes:"},
		{"ring 1MiB", "ring: {max_bytes: 1MiB}", ""},
		{"outbox 512KiB", "uplink: {outbox_bytes: 512KiB}", "uplink.outbox_bytes: must be >= 1MiB"},
		{"outbox 8MiB", "uplink: {outbox_bytes: 8MiB}", ""},
		{"topic prefix with a space", "uplink: {topic_prefix: a b}", "uplink.topic_prefix:"},
		{"topic prefix with an empty level", "uplink: {topic_prefix: a//b}", "uplink.topic_prefix:"},
		{"topic prefix wildcard", "uplink: {topic_prefix: a/+}", "uplink.topic_prefix:"},
		{"topic prefix levels", "uplink: {topic_prefix: fleet/eu-1}", ""},
		{"bandwidth 100", "uplink: {bandwidth: 100}", "uplink.bandwidth: must be 0 (unlimited) or >= 1KiB"},
		{"bandwidth 1KiB", "uplink: {bandwidth: 1KiB}", ""},
		{"max_payload 100", "uplink: {max_payload: 100}", "uplink.max_payload: must be >= 1024"},
		{"max_payload 300MiB", "uplink: {max_payload: 300MiB}", "uplink.max_payload: must be <= 256MiB"},
		{"max_payload 1KiB", "uplink: {max_payload: 1KiB}", ""},
		{"cert without key", "uplink: {cert_file: /etc/hostname}", "uplink.cert_file: cert_file and key_file"},
		{"recording topic alone", "episode: {recording_topic: /rec}", ""},
		{"fsm field path", "fsm: [{topic: /s, type: field, field: 'a..b'}]", "fsm[0].field:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte("robot_id: r\ndata_dir: " + t.TempDir() + "\n" + tc.yaml + "\n"))
			if err == nil {
				err = Check(cfg)
			}
			runErr := runAccepts(t, cfg)
			for what, e := range map[string]error{"config check": err, "run": runErr} {
				if tc.want == "" && e != nil {
					t.Errorf("%s refuses: %v", what, e)
				}
				if tc.want != "" && (e == nil || !strings.Contains(e.Error(), tc.want)) {
					t.Errorf("%s: got %v, want an error with %q", what, e, tc.want)
				}
			}
		})
	}
}

// runAccepts builds, from cfg, each component edged run builds (as
// run does, past Check): the sheet builder, a camera's ring, the
// uplink and the fsm stage. It returns the first refusal.
func runAccepts(t *testing.T, cfg *config.Config) error {
	t.Helper()
	d := &Daemon{cfg: *cfg}
	topo, err := d.newTopology(cfg, &topology{}, []string{"/cam"}, nil)
	if err != nil {
		return err
	}
	defer topo.closeRings()
	b, err := sheet.NewBuilder(sheet.BuilderConfig{Camera: "/cam", Recipe: d.recipe(), Start: time.Unix(1, 0),
		Source: topo.cams[0].ring, Emit: func(*sheet.Sheet) error { return nil }})
	if err != nil {
		return err
	}
	b.Close()
	ucfg, err := uplinkConfig(cfg, "")
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	up, err := uplink.New(ucfg, uplink.Options{Logger: log})
	if err != nil {
		return err
	}
	up.Close()
	if fc := fsmConfig(cfg); fc.Wanted() {
		st, err := episode.Open(filepath.Join(cfg.DataDir, episode.EpisodesDir), episode.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		m, err := fsm.New(fc, st)
		if err != nil {
			return err
		}
		m.Close()
	}
	return nil
}
