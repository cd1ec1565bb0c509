// Package systemd holds edged's systemd unit (edged.service) and its
// commented sample config (edged.yaml), installed by `make install` and
// by the Debian package (packaging/, which checks it agrees with them), and
// the mosquitto ACL sample for a fleet (mosquitto-edged.acl, see
// docs/deploy.md). The Go files here only test them: the unit passes
// `systemd-analyze verify` and its sandboxing keeps `systemd-analyze
// security` exposure at or below 2.5; the sample config passes `edged
// config check` (daemon.Check) and names every section and setting of
// config.Config; the ACL, loaded by a real mosquitto, keeps each robot
// to its own topics.
package systemd
