package cdr

import (
	"errors"
	"testing"
)

// TestTriggerService: a Trigger request's header is read back with the
// request after it; the reply echoes the header and reads back; a
// sample too short for the header is an error.
func TestTriggerService(t *testing.T) {
	h := RequestHeader{GUID: 0x0102030405060708, Seq: 42}
	req := AppendTriggerRequest(nil, h)
	if len(req) != 4+16+1 {
		t.Errorf("request % x", req)
	}
	got, rest, err := ReadRequestHeader(req)
	if err != nil || got != h || len(rest) != 1 {
		t.Errorf("header %+v, rest % x: %v", got, rest, err)
	}
	for _, tc := range []struct {
		ok  bool
		msg string
	}{{true, "clip written"}, {false, ""}} {
		gh, ok, msg, err := ReadTriggerReply(AppendTriggerReply(nil, h, tc.ok, tc.msg))
		if err != nil || gh != h || ok != tc.ok || msg != tc.msg {
			t.Errorf("reply read back as %+v %v %q: %v", gh, ok, msg, err)
		}
	}
	for _, bad := range [][]byte{nil, {0, 1, 0, 0}, req[:12]} {
		if _, _, err := ReadRequestHeader(bad); !errors.Is(err, ErrShort) {
			t.Errorf("% x: %v", bad, err)
		}
	}
}
