package rosout

import (
	"encoding/binary"
	"time"
)

// The rosgraph_msgs/Log type as it travels on /rosout.
const (
	Type   = "rosgraph_msgs/Log"
	MD5Sum = "acffd30cd6b6de30f120938c17c593fb"
	Topic  = "/rosout"
)

// Definition is the full message definition (gendeps form) subscribers
// receive in the connection header.
const Definition = `byte DEBUG=1
byte INFO=2
byte WARN=4
byte ERROR=8
byte FATAL=16
Header header
byte level
string name
string msg
string file
string function
uint32 line
string[] topics

================================================================================
MSG: std_msgs/Header
uint32 seq
time stamp
string frame_id
`

// Levels of rosgraph_msgs/Log.
const (
	LevelDebug byte = 1
	LevelInfo  byte = 2
	LevelWarn  byte = 4
	LevelError byte = 8
	LevelFatal byte = 16
)

// Log is one rosgraph_msgs/Log message.
type Log struct {
	Seq      uint32
	Stamp    time.Time
	Level    byte
	Name     string // the node's name
	Msg      string
	File     string
	Function string
	Line     uint32
	Topics   []string // the topics the node publishes
}

// Marshal serializes m in ROS1 wire format (little-endian, strings and
// arrays with a uint32 length).
func (m *Log) Marshal() []byte {
	n := 4 + 8 + 4 + 1 + 4*4 + len(m.Name) + len(m.Msg) + len(m.File) + len(m.Function) + 4 + 4
	for _, t := range m.Topics {
		n += 4 + len(t)
	}
	b := make([]byte, 0, n)
	sec, nsec := rosTime(m.Stamp)
	b = binary.LittleEndian.AppendUint32(b, m.Seq)
	b = binary.LittleEndian.AppendUint32(b, sec)
	b = binary.LittleEndian.AppendUint32(b, nsec)
	b = appendString(b, "") // frame_id
	b = append(b, m.Level)
	for _, s := range []string{m.Name, m.Msg, m.File, m.Function} {
		b = appendString(b, s)
	}
	b = binary.LittleEndian.AppendUint32(b, m.Line)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(m.Topics)))
	for _, t := range m.Topics {
		b = appendString(b, t)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	return append(b, s...)
}

// rosTime splits t into ROS time's seconds and nanoseconds (0 for times
// before the epoch or past 2106).
func rosTime(t time.Time) (sec, nsec uint32) {
	if t.IsZero() || t.Unix() < 0 || t.Unix() > 1<<32-1 {
		return 0, 0
	}
	return uint32(t.Unix()), uint32(t.Nanosecond())
}
