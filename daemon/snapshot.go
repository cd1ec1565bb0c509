package daemon

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/http"

	"github.com/edged-robotics/edged/ros"
)

// The ~snapshot service (std_srvs/Trigger, as rosbag_snapshot offers)
// asks for an operator's clip on the ROS1 node (and on the ROS 2
// participant: snapshot_ros2.go), through requestClip as
// POST /clip does. It answers once the clip is accepted, not written:
// the clip's window ends clips.post later and a service answer must be
// written within the node's call timeout. success is false, with why,
// when the clip is refused (clips disabled, rate limit, no episode).
var snapshotService = ros.ServiceOptions{Name: "~snapshot", Type: "std_srvs/Trigger",
	MD5Sum:      "937c9679a518e3a18d831e57125ea522", // md5 of "bool success\nstring message", as genmsg computes it
	RequestType: "std_srvs/TriggerRequest", ResponseType: "std_srvs/TriggerResponse"}

// snapshotReason is the reason a ~snapshot clip carries.
const snapshotReason = "~snapshot service"

// serveSnapshot provides ~snapshot on the ROS1 node.
func (d *Daemon) serveSnapshot() {
	if _, err := d.node.AdvertiseService(snapshotService, d.answerSnapshot); err != nil {
		d.log.Warn("daemon: cannot serve ~snapshot; POST /clip still triggers clips", "err", err)
	}
}

// snapshot is what one ~snapshot call does, under ROS1 and ROS 2: an
// operator's clip requested, Trigger's success and message answered.
func (d *Daemon) snapshot(ctx context.Context) (bool, string) {
	return snapshotMessage(d.requestClip(ctx, snapshotReason, 0))
}

// answerSnapshot answers one std_srvs/Trigger call (its request is
// empty): bool success, string message.
func (d *Daemon) answerSnapshot([]byte) ([]byte, error) {
	ok, msg := d.snapshot(context.Background())
	b := []byte{0}
	if ok {
		b[0] = 1
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(msg)))
	return append(b, msg...), nil
}

// snapshotMessage is Trigger's answer to a clip request's outcome.
func snapshotMessage(status int, a ClipAnswer) (bool, string) {
	switch status {
	case http.StatusOK:
		return true, fmt.Sprintf("clip %s of episode %s written: %s", a.Name, a.Episode, a.Path)
	case http.StatusAccepted:
		return true, fmt.Sprintf("clip %s of episode %s triggered: written once its window closes (clips.post)", a.Name, a.Episode)
	}
	return false, a.Error
}
