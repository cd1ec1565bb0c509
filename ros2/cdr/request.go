package cdr

import (
	"fmt"

	"github.com/edged-robotics/edged/rosmsg"
)

// Services over rmw_cyclonedds_cpp (ROS 2's Cyclone DDS middleware): a
// request sample is the encapsulation header, the request header (the
// client's 64-bit id and the request's sequence number, 8 bytes each),
// then the pkg/srv/Name_Request message; the reply carries the same
// header, so the client matching it takes the reply to its request,
// then the _Response message. Alignment counts from after the
// encapsulation header, so the message is laid out as on its own.

// RequestHeader is rmw_cyclonedds's header of a service request and its
// reply.
type RequestHeader struct {
	GUID uint64 // the client's id (its request writer's)
	Seq  int64  // the request's sequence number, per client
}

// ReadRequestHeader reads the header of a service request sample and
// returns it and the request message's bytes (after the header).
func ReadRequestHeader(b []byte) (RequestHeader, []byte, error) {
	c := rosmsg.NewCDR(b)
	h := RequestHeader{GUID: c.U64(), Seq: int64(c.U64())}
	if err := c.Err(); err != nil {
		return RequestHeader{}, nil, fmt.Errorf("cdr: a service request without rmw_cyclonedds's request header: %w", err)
	}
	return h, b[len(b)-c.Remaining():], nil
}

// RequestHeader appends h (first, after NewWriter).
func (w *Writer) RequestHeader(h RequestHeader) *Writer { return w.U64(h.GUID).U64(uint64(h.Seq)) }

// The std_srvs/srv/Trigger service (edged's ~snapshot).
const (
	TypeTriggerRequest  = "std_srvs/srv/Trigger_Request"
	TypeTriggerResponse = "std_srvs/srv/Trigger_Response"
)

// AppendTriggerReply appends the reply to request h of a
// std_srvs/srv/Trigger service: bool success, string message.
func AppendTriggerReply(dst []byte, h RequestHeader, success bool, message string) []byte {
	return NewWriter(dst).RequestHeader(h).Bool(success).Str(message).Bytes()
}

// AppendTriggerRequest appends request h of a std_srvs/srv/Trigger
// service (an empty message: rosidl's one uint8 member).
func AppendTriggerRequest(dst []byte, h RequestHeader) []byte {
	return NewWriter(dst).RequestHeader(h).U8(0).Bytes()
}

// ReadTriggerReply reads a std_srvs/srv/Trigger reply sample.
func ReadTriggerReply(b []byte) (h RequestHeader, success bool, message string, err error) {
	c := rosmsg.NewCDR(b)
	h = RequestHeader{GUID: c.U64(), Seq: int64(c.U64())}
	success = c.U8() != 0
	message = c.Str("")
	return h, success, message, c.End(TypeTriggerResponse)
}
