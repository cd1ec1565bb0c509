package pipeline

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/config"
)

// TestUplinkConfig: the pipeline maps the uplink section as uplink's
// FromConfig did (it moved here so that uplink imports no config).
func TestUplinkConfig(t *testing.T) {
	dir := t.TempDir()
	pw := filepath.Join(dir, "pw")
	if err := os.WriteFile(pw, []byte("s3cret\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		pwFile   string
		wantPass string
		wantErr  string
	}{
		{"no password", "", "", ""},
		{"password file, line end trimmed", pw, "s3cret", ""},
		{"missing password file", filepath.Join(dir, "nope"), "", "uplink.password_file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c config.Config
			c.RobotID, c.DataDir = "arm-01", "/var/lib/edged"
			c.Uplink.Broker, c.Uplink.TopicPrefix, c.Uplink.ClientID = "tcp://b:1883", "fleet", "cid"
			c.Uplink.MaxPayload, c.Uplink.OutboxBytes, c.Uplink.Bandwidth = 4096, 1<<20, 1000
			c.Uplink.Username, c.Uplink.PasswordFile = "robot", tt.pwFile
			u, err := uplinkConfig(&c, "v1")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want one naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if u.Robot != "arm-01" || u.Dir != "/var/lib/edged/outbox" || u.Broker != "tcp://b:1883" || u.TopicPrefix != "fleet" ||
				u.ClientID != "cid" || u.MaxPayload != 4096 || u.OutboxBytes != 1<<20 || u.Bandwidth != 1000 || u.Version != "v1" ||
				u.Auth.Username != "robot" || u.Auth.Password != tt.wantPass {
				t.Fatalf("mapped %+v", u)
			}
		})
	}
}
