package mqttconn

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/edged-robotics/edged/internal/fielderr"
	"github.com/edged-robotics/edged/internal/pki"
)

// TestTLSConfigErrors: every error of Auth's TLS settings is a
// *fielderr.Error naming the setting at fault, by Auth.Keys when set
// (edged sink's flags), else by the robot's config keys; its message
// says what to do.
func TestTLSConfigErrors(t *testing.T) {
	dir := t.TempDir()
	ca, err := pki.NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	caFile, err := ca.WriteCert(dir, "ca.pem")
	if err != nil {
		t.Fatal(err)
	}
	crt, key, err := ca.IssueFiles("robot", pki.Client, dir, "robot")
	if err != nil {
		t.Fatal(err)
	}
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	absent := filepath.Join(dir, "absent.pem")
	flags := Keys{CAFile: "--ca-file", CertFile: "--cert-file", KeyFile: "--key-file"}
	for _, tc := range []struct {
		name      string
		auth      Auth
		field     string // "": no error
		msg, hint string
	}{
		{"CA and client certificate", Auth{CAFile: caFile, CertFile: crt, KeyFile: key}, "", "", ""},
		{"no file", Auth{}, "", "", ""},
		{"CA file absent", Auth{CAFile: absent}, "uplink.ca_file", "no such file", "give the PEM file of the CA"},
		{"CA file not PEM", Auth{CAFile: notPEM}, "uplink.ca_file", notPEM + " holds no PEM certificate", "-----BEGIN CERTIFICATE-----"},
		{"certificate without key", Auth{CertFile: crt}, "uplink.key_file", "required with uplink.cert_file", "private key"},
		{"key without certificate", Auth{KeyFile: key}, "uplink.cert_file", "required with uplink.key_file", "client certificate"},
		{"certificate absent", Auth{CertFile: absent, KeyFile: key}, "uplink.cert_file", "no such file", "its PEM private key"},
		{"key not PEM", Auth{CertFile: crt, KeyFile: notPEM}, "uplink.cert_file", "", "in uplink.key_file, its PEM private key"},
		{"sink flags: CA file absent", Auth{CAFile: absent, Keys: flags}, "--ca-file", "no such file", ""},
		{"sink flags: certificate without key", Auth{CertFile: crt, Keys: flags}, "--key-file", "required with --cert-file", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.auth.TLSConfig()
			if tc.field == "" {
				if err != nil {
					t.Fatalf("TLSConfig: %v", err)
				}
				return
			}
			var fe *fielderr.Error
			if !errors.As(err, &fe) {
				t.Fatalf("TLSConfig: %v (%T), want a *fielderr.Error", err, err)
			}
			if fe.Field != tc.field || !strings.HasPrefix(err.Error(), tc.field+": ") {
				t.Errorf("TLSConfig: %q names %q, want %q", err, fe.Field, tc.field)
			}
			for _, want := range []string{tc.msg, tc.hint} {
				if !strings.Contains(fe.Msg, want) {
					t.Errorf("TLSConfig: %q, want it to say %q", err, want)
				}
			}
		})
	}
}

// TestAuthValidate: the check without I/O that uplink.Config.Validate
// applies is TLSConfig's own.
func TestAuthValidate(t *testing.T) {
	for _, a := range []Auth{{CertFile: "c.pem"}, {KeyFile: "k.pem"}} {
		_, tlsErr := a.TLSConfig()
		if err := a.Validate(); err == nil || tlsErr == nil || err.Error() != tlsErr.Error() {
			t.Errorf("%+v: Validate %v, TLSConfig %v", a, err, tlsErr)
		}
	}
	if err := (Auth{CertFile: "c.pem", KeyFile: "k.pem"}).Validate(); err != nil {
		t.Errorf("a pair: %v", err)
	}
}

// TestExplainNamesKeys: the hints name the settings by Auth.Keys.
func TestExplainNamesKeys(t *testing.T) {
	flags := Keys{CAFile: "--ca-file", CertFile: "--cert-file", KeyFile: "--key-file"}
	e := Explain("ssl://h:8883", Auth{Keys: flags}, errors.New("write: connection reset by peer")).Error()
	if !strings.Contains(e, "--cert-file and --key-file") || strings.Contains(e, "uplink.") {
		t.Errorf("%q should name the flags, not the config keys", e)
	}
}
