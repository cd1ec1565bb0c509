// Package pki issues the X.509 certificates that tests and benchmarks
// need for TLS and mutual TLS on loopback: a CA, a broker's server
// certificate for 127.0.0.1, and client certificates whose subject CN
// is an identity (a robot id, a sink's account), the name that
// mosquitto's use_identity_as_username gives the ACL.
//
// Keys are ECDSA P-256 and certificates are valid from an hour ago for
// a day: it is for runs that make their own PKI and throw it away, never
// for a deployment (docs/deploy.md). Safe for concurrent use; the
// caller owns what it returns.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Usage is what a certificate is for.
type Usage int

const (
	CA     Usage = iota // signs the others
	Server              // a broker on 127.0.0.1
	Client              // mutual TLS: CN is the identity
)

// Cert is an issued certificate with its key.
type Cert struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	DER  []byte
}

// NewCA makes a self-signed CA named cn.
func NewCA(cn string) (*Cert, error) { return issue(cn, CA, nil) }

// Issue signs a certificate for cn with this CA.
func (ca *Cert) Issue(cn string, u Usage) (*Cert, error) { return issue(cn, u, ca) }

func issue(cn string, u Usage, parent *Cert) (*Cert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("pki: key for %s: %w", cn, err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return nil, fmt.Errorf("pki: serial for %s: %w", cn, err)
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment}
	switch u {
	case CA:
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}
	case Client:
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	default:
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.ParseIP("127.0.0.1")}
	}
	signer, signerKey := tmpl, key // a CA without a parent signs itself
	if parent != nil {
		signer, signerKey = parent.Cert, parent.Key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return nil, fmt.Errorf("pki: certificate for %s: %w", cn, err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("pki: certificate for %s: %w", cn, err)
	}
	return &Cert{Cert: c, Key: key, DER: der}, nil
}

// TLS is the certificate for a tls.Config.
func (c *Cert) TLS() tls.Certificate {
	return tls.Certificate{Certificate: [][]byte{c.DER}, PrivateKey: c.Key, Leaf: c.Cert}
}

// Pool is a pool trusting this CA.
func (c *Cert) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(c.Cert)
	return p
}

// WriteCert writes the certificate as PEM to dir/name and returns the path.
func (c *Cert) WriteCert(dir, name string) (string, error) {
	return writePEM(dir, name, "CERTIFICATE", c.DER)
}

// WriteKey writes the key as PEM (mode 0600) to dir/name and returns the path.
func (c *Cert) WriteKey(dir, name string) (string, error) {
	der, err := x509.MarshalECPrivateKey(c.Key)
	if err != nil {
		return "", fmt.Errorf("pki: key: %w", err)
	}
	return writePEM(dir, name, "EC PRIVATE KEY", der)
}

func writePEM(dir, name, typ string, der []byte) (string, error) {
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		return "", fmt.Errorf("pki: %w", err)
	}
	return path, nil
}

// IssueFiles signs a certificate for cn with this CA and writes it and
// its key to dir/name.crt and dir/name.key.
func (ca *Cert) IssueFiles(cn string, u Usage, dir, name string) (crt, key string, err error) {
	c, err := ca.Issue(cn, u)
	if err != nil {
		return "", "", err
	}
	if crt, err = c.WriteCert(dir, name+".crt"); err != nil {
		return "", "", err
	}
	key, err = c.WriteKey(dir, name+".key")
	return crt, key, err
}
