package rostool

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/ros"
)

func stringMessage(pub *ros.PublisherInfo, s string) *ros.Message {
	data := append([]byte{byte(len(s)), 0, 0, 0}, s...)
	return &ros.Message{Topic: "/chatter", Publisher: pub, Data: data, Received: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

// TestPrinter: a message prints decoded with its publisher's
// definition, as text or one JSON line; one that does not decode is a
// note; a definition that does not parse is an error.
func TestPrinter(t *testing.T) {
	good := &ros.PublisherInfo{CallerID: "/talker", Type: "std_msgs/String", MessageDefinition: "string data\n"}
	bad := &ros.PublisherInfo{CallerID: "/broken", Type: "x/Y", MessageDefinition: "no_such_type field\n"}
	for _, tc := range []struct {
		name string
		json bool
		m    *ros.Message
		want string
		err  bool
	}{
		{"text", false, stringMessage(good, "hi"), "--- /chatter std_msgs/String from /talker at 03:04:05.000\n{\"data\":\"hi\"}\n", false},
		{"json", true, stringMessage(good, "hi"),
			`{"topic":"/chatter","type":"std_msgs/String","publisher":"/talker","received":"2026-01-02T03:04:05Z","msg":{"data":"hi"}}` + "\n", false},
		{"a short message", false, &ros.Message{Topic: "/chatter", Publisher: good, Data: []byte{9, 0}}, "# /chatter: message of 2 bytes does not decode as std_msgs/String", false},
		{"a definition that does not parse", false, stringMessage(bad, "hi"), "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			p := &Printer{W: &b, JSON: tc.json}
			err := p.Print(tc.m)
			if (err != nil) != tc.err || !strings.HasPrefix(b.String(), tc.want) {
				t.Errorf("printed %q, %v; want %q (error %v)", b.String(), err, tc.want, tc.err)
			}
		})
	}
}

// TestEchoStopsAtCount: echo prints Count messages and releases each.
func TestEchoStopsAtCount(t *testing.T) {
	pub := &ros.PublisherInfo{CallerID: "/talker", Type: "std_msgs/String", MessageDefinition: "string data\n"}
	msgs := make(chan *ros.Message, 3)
	released := 0
	for _, s := range []string{"a", "b", "c"} {
		m := stringMessage(pub, s)
		m.SetRelease(func(*ros.Message) { released++ })
		msgs <- m
	}
	var b bytes.Buffer
	e := Echo{Printer: &Printer{W: &b}, Count: 2}
	if err := e.print(context.Background(), msgs, nil); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "---"); got != 2 || released != 2 {
		t.Errorf("%d printed, %d released; want 2 and 2", got, released)
	}
}
