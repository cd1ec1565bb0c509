// Package brokertest starts a real mosquitto for tests: its own config
// file, a free port on 127.0.0.1, persistence in a temp dir, optional
// TLS, mutual TLS and a password file (certificates generated here with
// internal/pki). Stop and Start restart it on the same port.
package brokertest

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/edged-robotics/edged/internal/freeport"
	"github.com/edged-robotics/edged/internal/pki"
)

// Mosquitto is the Debian broker binary.
const Mosquitto = "/usr/sbin/mosquitto"

// Options of a broker.
type Options struct {
	TLS        bool // a TLS listener with a generated server certificate
	RequireCrt bool // mutual TLS: clients must present a certificate from the CA
	User, Pass string
	// Users are more accounts (name: password), for ACL tests.
	Users map[string]string
	// ACLFile, when set, is the broker's acl_file (Reload reads it again).
	ACLFile string
	// NoPersistence: a restart forgets every session and queued message
	// (mosquitto's default, which a deployment may keep).
	NoPersistence bool
	// MaxQueued is max_queued_messages: how many QoS 1 messages the broker
	// queues for an offline persistent session before dropping. Default
	// 100000.
	MaxQueued int
}

// Broker is one mosquitto process.
type Broker struct {
	t    testing.TB
	dir  string
	Port int
	URL  string
	PKI  *PKI
	cmd  *exec.Cmd
}

// Start starts a broker or skips the test when mosquitto is missing.
func Start(t testing.TB, o Options) *Broker {
	t.Helper()
	if _, err := os.Stat(Mosquitto); err != nil {
		t.Skip("mosquitto is not installed (" + Mosquitto + "): run make deps")
	}
	b := &Broker{t: t, dir: t.TempDir(), Port: freeport.Port(t)}
	// As root, mosquitto would drop to the mosquitto user, which cannot
	// write the test's persistence directory.
	conf := ""
	if u, err := user.Current(); err == nil {
		conf = "user " + u.Username + "\n"
	}
	maxQueued := o.MaxQueued
	if maxQueued <= 0 {
		maxQueued = 100000
	}
	conf += fmt.Sprintf("listener %d 127.0.0.1\npersistence %v\npersistence_location %s/\nautosave_interval 1\n"+
		"max_queued_messages %d\nmax_inflight_messages 0\nlog_dest file %s/mosquitto.log\nlog_type error\nlog_type warning\n",
		b.Port, !o.NoPersistence, b.dir, maxQueued, b.dir)
	scheme := "tcp"
	if o.TLS {
		scheme = "ssl"
		b.PKI = NewPKI(t, b.dir)
		conf += fmt.Sprintf("cafile %s\ncertfile %s\nkeyfile %s\n", b.PKI.CAFile, b.PKI.ServerCert, b.PKI.ServerKey)
		if o.RequireCrt {
			conf += "require_certificate true\n"
		}
	}
	users := map[string]string{}
	for u, p := range o.Users {
		users[u] = p
	}
	if o.User != "" {
		users[o.User] = o.Pass
	}
	if len(users) > 0 {
		pw := filepath.Join(b.dir, "passwd")
		if err := os.WriteFile(pw, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		for u, p := range users {
			if out, err := exec.Command("mosquitto_passwd", "-b", pw, u, p).CombinedOutput(); err != nil {
				t.Fatalf("mosquitto_passwd: %v: %s", err, out)
			}
		}
		conf += "allow_anonymous false\npassword_file " + pw + "\n"
	} else {
		conf += "allow_anonymous true\n"
	}
	if o.ACLFile != "" {
		conf += "acl_file " + o.ACLFile + "\n"
	}
	if err := os.WriteFile(filepath.Join(b.dir, "mosquitto.conf"), []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	b.URL = fmt.Sprintf("%s://127.0.0.1:%d", scheme, b.Port)
	b.Start()
	t.Cleanup(b.Stop)
	return b
}

// Start (re)starts the process and waits until the port accepts.
func (b *Broker) Start() {
	b.t.Helper()
	cmd := exec.Command(Mosquitto, "-c", filepath.Join(b.dir, "mosquitto.conf"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.t.Fatal(err)
	}
	b.cmd = cmd
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", b.Port)); err == nil {
			c.Close()
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.t.Fatal("mosquitto did not start listening")
}

// Reload makes the broker read its configuration and ACL file again
// (SIGHUP), as an operator's change would.
func (b *Broker) Reload() {
	b.t.Helper()
	if err := b.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		b.t.Fatal(err)
	}
}

// Stop terminates the broker (SIGTERM: it saves its persistence) and
// waits for it.
func (b *Broker) Stop() {
	if b.cmd == nil {
		return
	}
	_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { b.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
	b.cmd = nil
}

// PKI is a test CA with a server and a client certificate, as files.
type PKI struct {
	CAFile, ServerCert, ServerKey, ClientCert, ClientKey string
}

// NewPKI generates a CA, a server certificate for 127.0.0.1 and a client
// certificate (CN arm-01) under dir.
func NewPKI(t testing.TB, dir string) *PKI {
	t.Helper()
	p, err := newPKI(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newPKI(dir string) (p *PKI, err error) {
	p = &PKI{}
	ca, err := pki.NewCA("edged test CA")
	if err != nil {
		return nil, err
	}
	if p.CAFile, err = ca.WriteCert(dir, "ca.crt"); err != nil {
		return nil, err
	}
	if p.ServerCert, p.ServerKey, err = ca.IssueFiles("127.0.0.1", pki.Server, dir, "server"); err != nil {
		return nil, err
	}
	p.ClientCert, p.ClientKey, err = ca.IssueFiles("arm-01", pki.Client, dir, "client")
	return p, err
}

// SelfSigned returns a self-signed client certificate (the broker must
// refuse it: no CA it trusts signed it).
func SelfSigned(t testing.TB, dir string) (cert, key string) {
	t.Helper()
	c, err := pki.NewCA("intruder")
	if err == nil {
		cert, err = c.WriteCert(dir, "intruder.crt")
	}
	if err == nil {
		key, err = c.WriteKey(dir, "intruder.key")
	}
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// ClientTLS is a tls.Config trusting the CA with the client certificate.
func (p *PKI) ClientTLS(t testing.TB) *tls.Config {
	pool := x509.NewCertPool()
	b, _ := os.ReadFile(p.CAFile)
	pool.AppendCertsFromPEM(b)
	c, err := tls.LoadX509KeyPair(p.ClientCert, p.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{c}}
}
