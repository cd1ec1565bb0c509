// Package systemd holds edged's systemd unit (edged.service) and its
// commented sample config (edged.yaml), installed by `make install`. The
// Go files here only test them: the unit passes `systemd-analyze verify`
// and its sandboxing keeps `systemd-analyze security` exposure at or
// below 2.5.
package systemd
