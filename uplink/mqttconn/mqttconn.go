// Package mqttconn holds what the publisher and the sink share about
// connecting to an MQTT 3.1.1 broker: broker URLs, TLS and mutual TLS from files,
// paho client options, errors an operator can act on, and a jittered
// backoff. Errors of the TLS settings are *fielderr.Error naming the
// setting as the user wrote it (Auth.Keys: the robot's config keys, or a
// command's flags). It starts no goroutines.
package mqttconn

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	mqtt "github.com/eclipse/paho.mqtt.golang"

	"github.com/edged-robotics/edged/internal/fielderr"
)

// Auth is how a client proves who it is and checks the broker.
type Auth struct {
	Username string
	Password string
	// CAFile: PEM roots that verify the broker; "" uses the system roots.
	CAFile string
	// CertFile and KeyFile: the client certificate for mutual TLS.
	CertFile string
	KeyFile  string
	// TLS, when set, is used as is instead of the files (tests).
	TLS *tls.Config
	// Keys names the file settings in errors and hints; zero:
	// UplinkKeys.
	Keys Keys
}

// Keys are the names an Auth's settings go by where the user set them:
// the field of its *fielderr.Error and the setting its hints say to
// check.
type Keys struct{ Username, PasswordFile, CAFile, CertFile, KeyFile string }

// UplinkKeys are the robot's config keys (package config's uplink
// section), what an Auth's errors name unless its Keys say otherwise.
// They are the one spelling of those keys: config's file checks and the
// pipeline's password read name them through UplinkKeys.
var UplinkKeys = Keys{Username: "uplink.username", PasswordFile: "uplink.password_file",
	CAFile: "uplink.ca_file", CertFile: "uplink.cert_file", KeyFile: "uplink.key_file"}

// keys returns a.Keys, or UplinkKeys when they are not set.
func (a Auth) keys() Keys {
	if a.Keys == (Keys{}) {
		return UplinkKeys
	}
	return a.Keys
}

// Validate checks a without I/O: a client certificate and its key go
// together. Errors are *fielderr.Error naming the setting.
func (a Auth) Validate() error {
	k := a.keys()
	switch {
	case a.CertFile != "" && a.KeyFile == "":
		return fielderr.New(k.KeyFile, "required with %s (the client certificate's private key)", k.CertFile)
	case a.CertFile == "" && a.KeyFile != "":
		return fielderr.New(k.CertFile, "required with %s (the client certificate of that key)", k.KeyFile)
	}
	return nil
}

// TLSConfig checks a and loads its files. It returns nil, nil when no
// file is set. Errors are *fielderr.Error naming the setting at fault.
func (a Auth) TLSConfig() (*tls.Config, error) {
	if a.TLS != nil {
		return a.TLS, nil
	}
	if a.CAFile == "" && a.CertFile == "" && a.KeyFile == "" {
		return nil, nil
	}
	if err := a.Validate(); err != nil {
		return nil, err
	}
	k := a.keys()
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if a.CAFile != "" {
		pem, err := os.ReadFile(a.CAFile)
		if err != nil {
			return nil, fielderr.New(k.CAFile, "%w (give the PEM file of the CA that signed the broker's certificate)", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fielderr.New(k.CAFile, "%s holds no PEM certificate (give the CA's certificate, -----BEGIN CERTIFICATE-----)", a.CAFile)
		}
		c.RootCAs = pool
	}
	if a.CertFile != "" {
		cert, err := tls.LoadX509KeyPair(a.CertFile, a.KeyFile)
		if err != nil {
			return nil, fielderr.New(k.CertFile, "%w (give a PEM certificate and, in %s, its PEM private key)", err, k.KeyFile)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// BrokerURL normalizes a broker address for paho: tcp:// and mqtt://
// are plain, ssl://, mqtts:// and tls:// use TLS.
//
// It is the one rule of a broker address (uplink.broker, edged sink's
// and edged replay's --broker): a port is required, as paho would
// otherwise dial port 0 (config check used to require it; the uplink
// took tcp://host). Credentials in the URL (tcp://user:pass@host) are
// refused: paho would not send them, and the URL is logged. The
// username and the password file have their own settings.
func BrokerURL(broker string) (string, bool, error) {
	u, err := url.Parse(broker)
	if err != nil || u.Host == "" {
		return "", false, fmt.Errorf("broker: must be tcp://host:port or ssl://host:port, got %q", Redact(broker))
	}
	if u.User != nil {
		return "", false, fmt.Errorf("broker: must not hold credentials (got %q): put the username in %s and the password in %s (edged sink: --username, --password-file)", Redact(broker), UplinkKeys.Username, UplinkKeys.PasswordFile)
	}
	secure := false
	switch u.Scheme {
	case "tcp", "mqtt":
	case "ssl", "mqtts", "tls":
		secure = true
	default:
		return "", false, fmt.Errorf("broker: scheme must be tcp, mqtt, ssl, mqtts or tls, got %q", u.Scheme)
	}
	if u.Port() == "" {
		return "", false, fmt.Errorf("broker: needs a port (tcp://host:1883, ssl://host:8883), got %q", broker)
	}
	if secure {
		return "ssl://" + u.Host, true, nil
	}
	return "tcp://" + u.Host, false, nil
}

// Redact hides what could be credentials in a broker address: whatever
// sits between "://" (or the start) and the last '@'.
func Redact(broker string) string {
	at := strings.LastIndexByte(broker, '@')
	if at < 0 {
		return broker
	}
	start := 0
	if i := strings.Index(broker, "://"); i >= 0 && i < at {
		start = i + 3
	}
	return broker[:start] + "REDACTED" + broker[at:]
}

// ClientOptions returns paho options with our policies: MQTT 3.1.1
// (protocol level 4, the only version paho.mqtt.golang speaks; pinned so
// it never falls back to 3.1), no automatic reconnect (callers own the
// reconnect loop), a clean session unless persistent is set (the sink
// keeps its session so the broker queues for it), ordered delivery.
func ClientOptions(broker, clientID string, a Auth, persistent bool) (*mqtt.ClientOptions, error) {
	u, secure, err := BrokerURL(broker)
	if err != nil {
		return nil, err
	}
	o := mqtt.NewClientOptions().AddBroker(u).SetClientID(clientID).
		SetAutoReconnect(false).SetConnectRetry(false).SetCleanSession(!persistent).
		SetOrderMatters(true).SetKeepAlive(10 * time.Second).SetPingTimeout(5 * time.Second).
		SetConnectTimeout(10 * time.Second).SetWriteTimeout(5 * time.Second).SetProtocolVersion(4)
	if a.Username != "" {
		o.SetUsername(a.Username).SetPassword(a.Password)
	}
	tc, err := a.TLSConfig()
	if err != nil {
		return nil, err
	}
	if secure && tc == nil {
		tc = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if tc != nil {
		o.SetTLSConfig(tc)
	}
	return o, nil
}

// Explain turns a connect error into one an operator can act on. a is
// the client's own credentials: it tells a client certificate the broker
// rejected apart from a broker certificate this client could not verify.
func Explain(broker string, a Auth, err error) error {
	if err == nil {
		return nil
	}
	s := err.Error()
	hint := tlsHint(broker, a, err)
	switch {
	case hint != "":
	case strings.Contains(s, "bad user name or password"):
		hint = "the broker refused the username or password (check " + a.keys().Username + " and " + a.keys().PasswordFile + ")"
	case strings.Contains(s, "not Authorized"):
		hint = "the broker refused this client (not authorized: check credentials, client certificate and ACLs)"
	case strings.Contains(s, "connection refused"):
		hint = "nothing listens at the broker address (is the broker running?)"
	case strings.Contains(s, "EOF") || strings.Contains(s, "reset by peer"):
		hint = "the broker closed the connection (a TLS listener reached without ssl://, a client certificate it rejects, or credentials it refuses)"
	default:
		hint = "could not connect"
	}
	return fmt.Errorf("mqtt %s: %s: %w", Redact(broker), hint, err)
}

// tlsHints are the hints for TLS failures, by whose certificate is at
// fault, naming the settings by k.
type tlsHints struct{ serverCert, clientCert, noCert, certHungUp, handshake string }

func hintsFor(k Keys) tlsHints {
	pair := k.CertFile + " and " + k.KeyFile
	checkPair := "check " + pair + ": issued by a CA the broker trusts, valid now, for client authentication"
	return tlsHints{
		serverCert: "TLS verification of the broker's certificate failed (check " + k.CAFile + " against the broker's certificate, and its host name)",
		clientCert: "the broker rejected this client's certificate (" + checkPair + ")",
		noCert:     "the broker closed the TLS connection; it probably requires a client certificate (set " + pair + ")",
		// With TLS 1.3 the client's handshake ends before the broker
		// checks the client certificate: a rejection may reach the
		// client as a reset or EOF on its first write instead of an
		// alert.
		certHungUp: "the broker closed the TLS connection after the handshake; it most likely rejected this client's certificate (" + checkPair + ")",
		handshake:  "the broker aborted the TLS handshake (a client certificate it requires or rejects, or no common TLS version: check " + pair + ")",
	}
}

// tlsHint: our verification of the broker failed (a
// tls.CertificateVerificationError or an x509 error, raised locally), or
// the broker sent an alert about our certificate (a "remote error"), or
// a TLS broker hung up on a client that presented no certificate.
func tlsHint(broker string, a Auth, err error) string {
	var verr *tls.CertificateVerificationError
	var op *net.OpError
	s := err.Error()
	h := hintsFor(a.keys())
	switch {
	case errors.As(err, &op) && op.Op == "remote error", strings.Contains(s, "remote error"):
		if strings.Contains(s, "certificate") {
			return h.clientCert
		}
		return h.handshake
	case errors.As(err, &verr), strings.Contains(s, "x509"), strings.Contains(s, "failed to verify certificate"):
		return h.serverCert
	}
	_, secure, _ := BrokerURL(broker)
	hungUp := strings.Contains(s, "EOF") || strings.Contains(s, "reset by peer") || strings.Contains(s, "broken pipe")
	switch {
	case secure && hungUp && a.CertFile == "" && a.TLS == nil:
		return h.noCert
	case secure && hungUp && a.CertFile != "":
		return h.certHungUp
	}
	return ""
}

// Backoff is an exponential backoff with full jitter; not safe for
// concurrent use.
type Backoff struct {
	Min, Max time.Duration
	cur      time.Duration
}

// Next returns how long to wait before the next attempt.
func (b *Backoff) Next() time.Duration {
	if b.Min <= 0 {
		b.Min = 500 * time.Millisecond
	}
	if b.Max < b.Min {
		b.Max = 30 * time.Second
	}
	if b.cur < b.Min {
		b.cur = b.Min
	} else {
		b.cur = min(2*b.cur, b.Max)
	}
	// Full jitter between Min/2 and cur, so a fleet does not reconnect
	// in lockstep after a broker restart.
	lo := b.Min / 2
	return lo + rand.N(b.cur-lo+1)
}

// Reset is called after a successful connection.
func (b *Backoff) Reset() { b.cur = 0 }
