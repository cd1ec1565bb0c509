#!/usr/bin/env bash
# Runs every fuzz target in the module for the given time each (default
# 30s). New crashers land in the package's testdata/fuzz/ as Go writes them.
set -euo pipefail
cd "$(dirname "$0")/.."
t=${1:-30s}
grep -rl --include='*_test.go' '^func Fuzz' . | sort | while read -r f; do
  dir=$(dirname "$f")
  for name in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | cut -d' ' -f2); do
    echo "== $dir $name ($t)"
    go test "$dir" -run '^$' -fuzz "^${name}\$" -fuzztime "$t"
  done
done
