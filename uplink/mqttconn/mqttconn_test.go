package mqttconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
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
		// the uplink took these and paho dialed port 0; config refused them
		{"tcp://h", "", false, false},
		{"ssl://h:", "", false, false},
		{"mqtts://[::1]:8883", "ssl://[::1]:8883", true, true},
		{"tcp://robot:hunter2@h:1883", "", false, false},
		{"tcp://hunter2@h:1883", "", false, false},
		{"tcp://robot:hunter2@%zz", "", false, false},
		{"tcp://robot:hunter2@h", "", false, false},
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

func TestExplainTLS(t *testing.T) {
	remote := func(msg string) error { return &net.OpError{Op: "remote error", Err: errors.New(msg)} }
	withCert := Auth{CAFile: "ca.pem", CertFile: "c.pem", KeyFile: "c.key"}
	for _, tc := range []struct {
		name, broker string
		auth         Auth
		err          error
		want, not    string
	}{
		{"client cert unknown CA", "ssl://h:8883", withCert, remote("tls: unknown certificate authority"), "uplink.cert_file", "uplink.ca_file"},
		{"client cert bad", "ssl://h:8883", withCert, remote("tls: bad certificate"), "uplink.cert_file", "uplink.ca_file"},
		{"client cert required", "ssl://h:8883", Auth{}, remote("tls: certificate required"), "uplink.cert_file", "uplink.ca_file"},
		{"handshake failure", "ssl://h:8883", withCert, remote("tls: handshake failure"), "aborted the TLS handshake", "uplink.ca_file"},
		{"server unknown CA", "ssl://h:8883", withCert, &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}, "uplink.ca_file", "uplink.cert_file"},
		{"server host name", "ssl://h:8883", withCert, fmt.Errorf("network Error : %w", x509.HostnameError{Certificate: &x509.Certificate{}, Host: "h"}), "uplink.ca_file", "uplink.cert_file"},
		{"no cert, hung up", "ssl://h:8883", Auth{CAFile: "ca.pem"}, errors.New("write: connection reset by peer"), "uplink.cert_file", "uplink.ca_file"},
		{"cert rejected after a TLS 1.3 handshake", "ssl://h:8883", Auth{CAFile: "ca.pem", CertFile: "c.pem", KeyFile: "k.pem"}, errors.New("write: connection reset by peer"), "uplink.cert_file", "uplink.ca_file"},
		{"plain, hung up", "tcp://h:1883", Auth{}, io.EOF, "closed the connection", "uplink.cert_file"},
		{"password", "tcp://h:1883", Auth{}, errors.New("bad user name or password"), "uplink.password_file", "uplink.cert_file"},
	} {
		e := Explain(tc.broker, tc.auth, tc.err).Error()
		if !strings.Contains(e, tc.want) || strings.Contains(e, tc.not) {
			t.Errorf("%s: %q should contain %q and not %q", tc.name, e, tc.want, tc.not)
		}
	}
}
