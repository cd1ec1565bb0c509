// Package packaging holds edged's Debian packaging for robots: debian/
// has the control template, conffiles, maintainer scripts, copyright and
// lintian overrides, which scripts/deb.sh stages with the binary, the
// unit and the sample config of systemd/ and builds with dpkg-deb (make
// deb: amd64 and arm64). The Go files here only test it: the package
// agrees with the unit and the config, the maintainer scripts do what
// they say (run against stand-ins for the tools they call), and where
// dpkg-dev is installed an amd64 package built from this checkout holds
// the right files, its unit verifies with systemd-analyze, and it is
// lintian clean (when lintian is installed).
package packaging
