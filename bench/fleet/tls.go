package main

import (
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"

	"github.com/edged-robotics/edged/internal/pki"
)

// sinkIdentity is the CN of the sinks' certificate: the account that
// systemd/mosquitto-edged.acl lets read every robot's topics.
const sinkIdentity = "edged-sink"

// fleetPKI is -tls: a CA, the broker's certificate, one certificate for
// the sinks' account and one per robot (CN = robot id), as a fleet is
// deployed (docs/deploy.md, option A). The broker requires a
// certificate, takes its CN as the username and applies the ACL, so
// the run pays for what a fleet pays for: handshakes, encryption and
// the ACL check of every publish.
type fleetPKI struct {
	ca                           *pki.Cert
	caFile, brokerCrt, brokerKey string
	sinkCrt, sinkKey             string
	acl                          string
}

func newFleetPKI(dir, acl string) (*fleetPKI, error) {
	if _, err := os.Stat(acl); err != nil {
		return nil, fmt.Errorf("-tls: the broker's ACL: %w (run from the repository root, or pass -acl)", err)
	}
	ca, err := pki.NewCA("edged fleet CA")
	if err != nil {
		return nil, err
	}
	p := &fleetPKI{ca: ca, acl: acl}
	if p.caFile, err = ca.WriteCert(dir, "ca.crt"); err != nil {
		return nil, err
	}
	if p.brokerCrt, p.brokerKey, err = ca.IssueFiles("127.0.0.1", pki.Server, dir, "broker"); err != nil {
		return nil, err
	}
	p.sinkCrt, p.sinkKey, err = ca.IssueFiles(sinkIdentity, pki.Client, dir, "sink")
	return p, err
}

// mosquittoConf is the listener's TLS part of the broker's config.
func (p *fleetPKI) mosquittoConf() string {
	return fmt.Sprintf("cafile %s\ncertfile %s\nkeyfile %s\nrequire_certificate true\nuse_identity_as_username true\n"+
		"allow_anonymous false\nacl_file %s\n", p.caFile, p.brokerCrt, p.brokerKey, p.acl)
}

// sinkArgs are the TLS flags of `edged sink`.
func (p *fleetPKI) sinkArgs() []string {
	return []string{"--ca-file", p.caFile, "--cert-file", p.sinkCrt, "--key-file", p.sinkKey}
}

// robotTLS is robot id's TLS config: its own certificate, the CA.
func (p *fleetPKI) robotTLS(id string) (*tls.Config, error) {
	c, err := p.ca.Issue(id, pki.Client)
	if err != nil {
		return nil, err
	}
	return &tls.Config{RootCAs: p.ca.Pool(), Certificates: []tls.Certificate{c.TLS()}, MinVersion: tls.VersionTLS12}, nil
}

// aclPath is the repository's ACL, relative to where make runs.
var aclPath = filepath.Join("systemd", "mosquitto-edged.acl")
