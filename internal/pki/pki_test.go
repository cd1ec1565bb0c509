package pki

import (
	"crypto/tls"
	"crypto/x509"
	"os"
	"testing"
)

func TestIssuedCertificatesVerify(t *testing.T) {
	ca, err := NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewCA("other CA")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cn    string
		usage Usage
		opts  x509.VerifyOptions
	}{
		{"127.0.0.1", Server, x509.VerifyOptions{DNSName: "127.0.0.1", KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}},
		{"arm-01", Client, x509.VerifyOptions{KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}},
	} {
		c, err := ca.Issue(tc.cn, tc.usage)
		if err != nil {
			t.Fatal(err)
		}
		if c.Cert.Subject.CommonName != tc.cn {
			t.Errorf("CN %q, want %q", c.Cert.Subject.CommonName, tc.cn)
		}
		tc.opts.Roots = ca.Pool()
		if _, err := c.Cert.Verify(tc.opts); err != nil {
			t.Errorf("%s does not verify against its CA: %v", tc.cn, err)
		}
		tc.opts.Roots = other.Pool()
		if _, err := c.Cert.Verify(tc.opts); err == nil {
			t.Errorf("%s verifies against another CA", tc.cn)
		}
	}
}

func TestIssueFilesLoadAsAKeyPair(t *testing.T) {
	ca, err := NewCA("test CA")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	crt, key, err := ca.IssueFiles("sink", Client, dir, "sink")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tls.LoadX509KeyPair(crt, key); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(key)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", fi.Mode().Perm())
	}
}
