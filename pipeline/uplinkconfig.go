package pipeline

import (
	"path/filepath"

	"github.com/edged-robotics/edged/config"
	"github.com/edged-robotics/edged/uplink"
	"github.com/edged-robotics/edged/uplink/mqttconn"
)

// uplinkConfig maps the config file's uplink section to uplink.Config
// (the pipeline maps config sections; uplink imports no config). The
// outbox lives in DATA_DIR/outbox. The password is read from
// uplink.password_file, the only I/O here.
func uplinkConfig(c *config.Config, version string) (uplink.Config, error) {
	u := c.Uplink
	cfg := uplink.Config{Robot: c.RobotID, Dir: filepath.Join(c.DataDir, "outbox"), Broker: u.Broker,
		TopicPrefix: u.TopicPrefix, MaxPayload: int(u.MaxPayload), OutboxBytes: int64(u.OutboxBytes),
		ClientID: u.ClientID, Bandwidth: int64(u.Bandwidth), Version: version, ResendAfter: u.ResendAfter.D(),
		Auth: mqttconn.Auth{Username: u.Username, CAFile: u.CAFile, CertFile: u.CertFile, KeyFile: u.KeyFile}}
	if u.PasswordFile != "" {
		pw, err := mqttconn.ReadPasswordFile(mqttconn.UplinkKeys.PasswordFile, u.PasswordFile)
		if err != nil {
			return cfg, err
		}
		cfg.Auth.Password = pw
	}
	return cfg, nil
}
