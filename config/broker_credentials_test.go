package config

import (
	"strings"
	"testing"
)

// TestBrokerCredentialsRefused: credentials in uplink.broker would never
// be sent (and the URL is logged), so config check refuses them, points
// to uplink.username and uplink.password_file, and never echoes them.
func TestBrokerCredentialsRefused(t *testing.T) {
	for _, broker := range []string{"tcp://robot:hunter2@broker:1883", "ssl://robot:hunter2@broker:8883", "tcp://hunter2@broker:1883", "tcp://robot:hunter2@%zz", "tcp://robot:hunter2@broker"} {
		_, err := Parse([]byte("robot_id: r1\nuplink:\n  broker: " + broker + "\n"))
		if err == nil {
			t.Errorf("%s: accepted", broker)
			continue
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the error shows the secret: %v", broker, err)
		}
		if !strings.Contains(err.Error(), "uplink.broker") {
			t.Errorf("%s: %v", broker, err)
		}
	}
	_, err := Parse([]byte("robot_id: r1\nuplink:\n  broker: tcp://robot:hunter2@broker:1883\n"))
	if err == nil || !strings.Contains(err.Error(), "uplink.password_file") {
		t.Errorf("no pointer to uplink.password_file: %v", err)
	}
}
