package mqttconn

import (
	"strings"
	"testing"
)

func TestBrokerURL(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		tls, ok  bool
	}{
		{"tcp://h:1883", "tcp://h:1883", false, true},
		{"mqtt://h:1883", "tcp://h:1883", false, true},
		{"ssl://h:8883", "ssl://h:8883", true, true},
		{"mqtts://h:8883", "ssl://h:8883", true, true},
		{"tls://h:8883", "ssl://h:8883", true, true},
		{"http://h:80", "", false, false},
		{"h:1883", "", false, false},
		{"tcp://robot:hunter2@h:1883", "", false, false},
		{"tcp://hunter2@h:1883", "", false, false},
		{"tcp://robot:hunter2@%zz", "", false, false},
	} {
		got, tls, err := BrokerURL(tc.in)
		if (err == nil) != tc.ok || got != tc.want || tls != tc.tls {
			t.Errorf("BrokerURL(%q) = %q, %v, %v", tc.in, got, tls, err)
		}
		if err != nil && strings.Contains(err.Error(), "hunter2") {
			t.Errorf("BrokerURL(%q): the error shows the secret: %v", tc.in, err)
		}
	}
	if _, _, err := BrokerURL("tcp://robot:hunter2@h:1883"); err == nil || !strings.Contains(err.Error(), "uplink.password_file") {
		t.Errorf("no pointer to the password setting: %v", err)
	}
}
