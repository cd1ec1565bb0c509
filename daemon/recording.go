package daemon

import (
	"context"
	"fmt"
	"os"

	"github.com/edged-robotics/edged/bag"
	"github.com/edged-robotics/edged/bag/rosbag2"
)

// recording is one bag a replay reads: a ROS1 bag (bag/) or a rosbag2
// bag (bag/rosbag2, MCAP or sqlite3). Both give bag/'s connections,
// info and messages, so the replay loop is one for both; each message's
// Publisher.Encoding tells capture how to decode it.
type recording interface {
	Info() bag.Info
	Connections() []*bag.Connection
	Messages(topics ...string) messageIter
	Close() error
}

// messageIter walks one recording's messages in time order.
type messageIter interface {
	Next() bool
	Message() bag.Message
	Err() error
	Close()
}

type ros1Bag struct{ *bag.Reader }

func (b ros1Bag) Messages(topics ...string) messageIter { return b.Reader.Messages(topics...) }

// ros2Bag is a rosbag2 bag with the replay's context, which ends its
// sqlite3 queries when the replay is stopped (SIGTERM, SIGINT).
type ros2Bag struct {
	*rosbag2.Reader
	ctx context.Context
}

func (b ros2Bag) Messages(topics ...string) messageIter {
	return b.Reader.MessagesContext(b.ctx, topics...)
}

// openRecording opens a ROS1 .bag file, or a rosbag2 bag: a directory
// (metadata.yaml), an .mcap or a .db3 file. A path that is neither a
// directory nor a regular file is refused: a FIFO would block the open.
func openRecording(ctx context.Context, path string) (recording, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("bag %s: %w", path, err)
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("bag %s: not a regular file or a directory (%s)", path, st.Mode().Type())
	}
	if st.IsDir() || rosbag2.IsBag(path) {
		// a replay reads the whole bag: its MCAP data section CRC is
		// checked too (one more sequential read), so damage anywhere
		// is reported (ReplaySummary.Damage)
		r, err := rosbag2.OpenContext(ctx, path, rosbag2.Options{VerifyDataCRC: true})
		if err != nil {
			return nil, err
		}
		return ros2Bag{r, ctx}, nil
	}
	r, err := bag.Open(path)
	if err != nil {
		return nil, err
	}
	return ros1Bag{r}, nil
}
