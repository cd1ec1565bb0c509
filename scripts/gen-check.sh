#!/usr/bin/env bash
# Checks that generated code is current: regenerates uplink/wire in a
# temporary copy and diffs it against the checked-in files. Needs the
# msgp generator (go install github.com/tinylib/msgp@v1.6.5 into bin/).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:/usr/local/go/bin:$PATH"
MSGP_VERSION=v1.6.5
if ! command -v msgp >/dev/null 2>&1; then
  echo "gen-check: installing msgp $MSGP_VERSION into bin/"
  GOBIN="$PWD/bin" go install "github.com/tinylib/msgp@$MSGP_VERSION"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for pkg in uplink/wire; do
  mkdir -p "$tmp/$pkg"
  cp "$pkg"/*.go "$tmp/$pkg/"
  rm -f "$tmp/$pkg"/*_gen.go
  # Run the package's //go:generate msgp lines (go generate itself
  # needs the module, which the copy has not).
  grep -h '^//go:generate msgp ' "$pkg"/*.go | sed 's|^//go:generate ||' | while read -r line; do
    (cd "$tmp/$pkg" && eval "$line" >/dev/null)
  done
  for f in "$pkg"/*_gen.go; do
    if ! diff -u "$f" "$tmp/$pkg/$(basename "$f")"; then
      echo "gen-check: $f is stale: run go generate ./$pkg/" >&2
      status=1
    fi
  done
done
[ $status = 0 ] && echo "gen-check: generated code is current"
exit $status
