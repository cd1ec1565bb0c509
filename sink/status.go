package sink

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/edged-robotics/edged/blob"
	"github.com/edged-robotics/edged/uplink/wire"
)

// RobotsDir holds one directory per robot under the sink's output.
const RobotsDir = "robots"

// StatusPath is where the retained status of robot is kept.
func StatusPath(out, robot string) string {
	return filepath.Join(out, RobotsDir, robot, "status.json")
}

// statusJSON is status.json: the robot's newest status.
type statusJSON struct {
	Robot        string    `json:"robot"`
	State        string    `json:"state"`
	Version      string    `json:"version"`
	Backlog      int64     `json:"backlog"`
	BacklogBytes int64     `json:"backlog_bytes"`
	Evicted      int64     `json:"evicted"`
	Time         time.Time `json:"time"`
	// Session and Final order statuses (wire.Status.Newer); absent for
	// robots from before them.
	Session *time.Time `json:"session,omitempty"`
	Final   bool       `json:"final,omitempty"`
}

func statusFile(robot string, st wire.Status) statusJSON {
	j := statusJSON{Robot: robot, State: st.State, Version: st.Version, Backlog: st.Backlog,
		BacklogBytes: st.BacklogBytes, Evicted: st.Evicted, Time: time.Unix(0, st.Time).UTC(), Final: st.Final}
	if st.Session != 0 {
		t := time.Unix(0, st.Session).UTC()
		j.Session = &t
	}
	return j
}

// order is what of j wire.Status.Newer compares.
func (j statusJSON) order() wire.Status {
	st := wire.Status{Time: j.Time.UnixNano(), Final: j.Final}
	if j.Session != nil {
		st.Session = j.Session.UnixNano()
	}
	return st
}

// maxStatusFile caps the read of a held status.json.
const maxStatusFile = 64 << 10

// maxStatusRaces bounds the retries of one status against other sinks
// writing the robot's status at once.
const maxStatusRaces = 8

// writeStatus keeps the robot's newest status. Statuses reach the sinks
// of a group out of order (any sink may get any, a redelivery comes
// late), and the robot's will is older by its time than every status of
// its connection; so status.json is replaced only by a newer status
// (wire.Status.Newer), conditionally on the one read. An older one is
// dropped (StaleStatuses). A status.json that does not parse is
// replaced.
func (s *Sink) writeStatus(e *wire.Envelope) error {
	var st wire.Status
	if _, err := st.UnmarshalMsg(e.Body); err != nil {
		return fmt.Errorf("sink: status: %w", err)
	}
	b, _ := json.MarshalIndent(statusFile(e.Robot, st), "", "  ")
	b = append(b, '\n')
	name := RobotsDir + "/" + e.Robot + "/status.json"
	for range maxStatusRaces {
		cur, ver, err := s.store.Get(name, maxStatusFile)
		cond := blob.Cond{IfAbsent: true}
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil && !errors.Is(err, blob.ErrTooLarge):
			return retry(err)
		default:
			var held statusJSON
			if err == nil && json.Unmarshal(cur, &held) == nil && !st.Newer(held.order()) {
				s.staleStatuses.Add(1)
				return nil
			}
			cond = blob.Cond{IfVersion: ver}
			if ver == "" {
				cond = blob.Cond{} // too large to read: replaced
			}
		}
		_, err = s.store.Put(name, b, cond)
		if errors.Is(err, blob.ErrPrecondition) {
			continue // another sink wrote it meanwhile: compare again
		}
		if err != nil {
			return retry(err)
		}
		s.statuses.Add(1)
		return nil
	}
	return retry(fmt.Errorf("sink: status of %s: lost %d races to other sinks", e.Robot, maxStatusRaces))
}
