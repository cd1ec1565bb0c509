package uplink_test

import (
	"strings"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/brokertest"
	"github.com/edged-robotics/edged/internal/poll"
	"github.com/edged-robotics/edged/uplink/mqttconn"
)

// deliverOne enqueues a segment and a sheet with auth and waits for the
// sink; it returns the uplink for further checks.
func sendSome(t *testing.T, dir, broker string, auth mqttconn.Auth) *testUplink {
	t.Helper()
	u := newUplink(t, dir, broker, auth, nil)
	mustNil(t, u.Segment(manifest(epID("tls"), false), segment(1)))
	mustNil(t, u.Sheet(epID("tls"), fakeSheet(1, 40_000)))
	return u
}

// blames checks that a connect error names the setting at fault and not
// the other one.
func blames(t *testing.T, what, err, field, notField string) {
	t.Helper()
	if !strings.Contains(err, field) || strings.Contains(err, notField) {
		t.Errorf("error for %s should point to %s, not %s: %q", what, field, notField, err)
	}
}

// TestMutualTLS: a client certificate the broker rejects (or none) is
// blamed on uplink.cert_file, a broker certificate this client cannot
// verify on uplink.ca_file; nothing is lost meanwhile.
func TestMutualTLS(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{TLS: true, RequireCrt: true})
	p := b.PKI
	good := mqttconn.Auth{CAFile: p.CAFile, CertFile: p.ClientCert, KeyFile: p.ClientKey}
	r := startSink(t, b.URL, good, t.TempDir())

	// A client certificate from another CA: refused, a clear error,
	// retries, nothing lost.
	dir := t.TempDir()
	badCert, badKey := brokertest.SelfSigned(t, t.TempDir())
	u := sendSome(t, dir, b.URL, mqttconn.Auth{CAFile: p.CAFile, CertFile: badCert, KeyFile: badKey})
	poll.Until(t, 10*time.Second, "connect errors", func() bool { return u.Stats().Publisher.ConnectErrors >= 2 })
	blames(t, "a client certificate from another CA", u.Stats().Publisher.LastError, "uplink.cert_file", "uplink.ca_file")
	u.Close()

	// No client certificate where the broker requires one.
	u = newUplink(t, t.TempDir(), b.URL, mqttconn.Auth{CAFile: p.CAFile}, nil)
	poll.Until(t, 10*time.Second, "connect error", func() bool { return u.Stats().Publisher.ConnectErrors >= 1 })
	blames(t, "no client certificate", u.Stats().Publisher.LastError, "uplink.cert_file", "uplink.ca_file")
	u.Close()

	// The broker's certificate checked against the wrong CA.
	other := brokertest.NewPKI(t, t.TempDir())
	u = newUplink(t, t.TempDir(), b.URL, mqttconn.Auth{CAFile: other.CAFile, CertFile: p.ClientCert, KeyFile: p.ClientKey}, nil)
	poll.Until(t, 10*time.Second, "connect error", func() bool { return u.Stats().Publisher.ConnectErrors >= 1 })
	blames(t, "an unknown broker CA", u.Stats().Publisher.LastError, "uplink.ca_file", "uplink.cert_file")
	u.Close()

	// The right certificate: what waited in the outbox arrives.
	u = newUplink(t, dir, b.URL, good, nil)
	defer u.Close()
	poll.Until(t, 10*time.Second, "delivery over mutual TLS", func() bool { return r.count() == 3 })
	r.checkOnceInOrder(t)
}

func TestPassword(t *testing.T) {
	b := brokertest.Start(t, brokertest.Options{User: "robot", Pass: "s3cret"})
	r := startSink(t, b.URL, mqttconn.Auth{Username: "robot", Password: "s3cret"}, t.TempDir())
	dir := t.TempDir()
	u := sendSome(t, dir, b.URL, mqttconn.Auth{Username: "robot", Password: "wrong"})
	poll.Until(t, 10*time.Second, "connect errors", func() bool { return u.Stats().Publisher.ConnectErrors >= 2 })
	if e := u.Stats().Publisher.LastError; !strings.Contains(e, "refused") {
		t.Errorf("error for a wrong password: %q", e)
	}
	if u.Stats().Outbox.Pending != 3 {
		t.Errorf("outbox holds %d, want 3", u.Stats().Outbox.Pending)
	}
	u.Close()
	u = newUplink(t, dir, b.URL, mqttconn.Auth{Username: "robot", Password: "s3cret"}, nil)
	defer u.Close()
	poll.Until(t, 10*time.Second, "delivery", func() bool { return r.count() == 3 })
}
