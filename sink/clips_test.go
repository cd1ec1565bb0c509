package sink

import (
	"testing"
	"time"

	"github.com/edged-robotics/edged/episode"
	"github.com/edged-robotics/edged/uplink/wire"
)

// TestSinkClipAnnouncements: a clip message lists the clip in the
// episode's manifest; the same again is taken (idempotent); a hostile
// one (a path for a name, another place than the robot or s3://) is
// acknowledged, dropped and counted as rejected, nothing listed.
func TestSinkClipAnnouncements(t *testing.T) {
	out := t.TempDir()
	s := newTestSink(t, Config{Out: out})
	at := time.Date(2023, 11, 14, 22, 13, 25, 0, time.UTC)
	send := func(c wire.Clip) error {
		body, err := c.MarshalMsg(nil)
		if err != nil {
			t.Fatal(err)
		}
		return s.Handle("edged/arm-01/clip", enc(t, wire.New(wire.NewID(), "arm-01", testEp, wire.KindClip, 0, 1, body)))
	}
	good := wire.Clip{Name: episode.ClipName(at, "state"), Kind: "state", At: at.UnixNano(), Bytes: 9, Where: episode.ClipOnRobot}
	for range 2 {
		if err := send(good); err != nil {
			t.Fatal(err)
		}
	}
	for _, bad := range []wire.Clip{
		{Name: "clip-20231114T221325.000Z-../../../x.mcap", Kind: "../../../x", At: at.UnixNano(), Where: episode.ClipOnRobot},
		{Name: good.Name, Kind: good.Kind, At: good.At, Where: "file:///etc/passwd"},
	} {
		if err := send(bad); err == nil {
			t.Errorf("%+v taken", bad)
		}
	}
	if st := s.Stats(); st.Rejected != 2 {
		t.Errorf("rejected %d, want 2", st.Rejected)
	}
	e, err := episode.Load(episode.StoreDir(out), testEp)
	if err != nil {
		t.Fatal(err)
	}
	if c := e.Manifest.Clips; len(c) != 1 || c[0].Name != good.Name || c[0].Where != episode.ClipOnRobot || c[0].Bytes != 9 {
		t.Errorf("manifest clips %+v", c)
	}
}
