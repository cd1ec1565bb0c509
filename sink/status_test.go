package sink

import (
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/edged-robotics/edged/uplink/wire"
)

// TestNewestStatusWins: statuses reach the sinks of a group out of
// order, and a robot's will is stamped when it connects, before every
// status of that connection. status.json must end at the robot's newest
// status by session, then final word, then time, whatever the order of
// delivery (it used to be whichever arrived last: a late will of an old
// connection showed a working robot offline, a late "online" hid a
// crash).
func TestNewestStatusWins(t *testing.T) {
	online := func(session, at int64) wire.Status {
		return wire.Status{State: "online", Session: session, Time: at}
	}
	will := func(session int64) wire.Status { // composed at connect
		return wire.Status{State: "offline", Session: session, Final: true, Time: session}
	}
	for _, tc := range []struct {
		name      string
		delivered []wire.Status
		want      wire.Status
		stale     uint64
	}{
		{"a crash: the will after the connection's statuses", []wire.Status{online(10, 11), online(10, 12), will(10)}, will(10), 0},
		{"a crash: a late status after the will", []wire.Status{online(10, 11), will(10), online(10, 12)}, will(10), 1},
		{"a reconnect: the old connection's will arrives late", []wire.Status{online(20, 21), will(10)}, online(20, 21), 1},
		{"a reconnect: the old connection's status arrives late", []wire.Status{will(10), online(20, 21), online(10, 15)}, online(20, 21), 1},
		{"one connection: a late status", []wire.Status{online(10, 13), online(10, 12)}, online(10, 13), 1},
		// A robot from before sessions cannot order its statuses: its will
		// (no final, stamped at connect) is older by time than every
		// status of its connection, and every connection has session 0.
		// Its statuses are taken as they arrive, as before sessions.
		{"a robot from before sessions: a crash", []wire.Status{online(0, 5), online(0, 6), {State: "offline", Time: 4}}, wire.Status{State: "offline", Time: 4}, 0},
		{"a robot from before sessions: a late status", []wire.Status{online(0, 5), online(0, 4)}, online(0, 4), 0},
		{"a robot upgraded: any session over none", []wire.Status{online(0, 50), online(10, 11)}, online(10, 11), 0},
		{"a robot rolled back: its statuses replace its newer version's", []wire.Status{online(10, 11), will(10), online(0, 5)}, online(0, 5), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			sinks := [2]*Sink{newTestSink(t, Config{Out: out, Group: "g", ClientID: "a"}), newTestSink(t, Config{Out: out, Group: "g", ClientID: "b"})}
			for i, st := range tc.delivered {
				body, _ := st.MarshalMsg(nil)
				mustHandle(t, sinks[i%2], "edged/arm-01/status", enc(t, wire.New(wire.NewID(), "arm-01", "", wire.KindStatus, 0, st.Time, body)))
			}
			b, err := os.ReadFile(StatusPath(out, "arm-01"))
			if err != nil {
				t.Fatal(err)
			}
			var got statusJSON
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if o := got.order(); got.State != tc.want.State || o != (wire.Status{Session: tc.want.Session, Final: tc.want.Final, Time: tc.want.Time}) {
				t.Errorf("status.json %s, want %+v", b, tc.want)
			}
			if tc.want.Session != 0 && (got.Session == nil || !got.Session.Equal(time.Unix(0, tc.want.Session))) {
				t.Errorf("status.json session %v, want %d", got.Session, tc.want.Session)
			}
			if n := sinks[0].Stats().StaleStatuses + sinks[1].Stats().StaleStatuses; n != tc.stale {
				t.Errorf("stale statuses %d, want %d", n, tc.stale)
			}
		})
	}
}
