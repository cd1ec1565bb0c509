#!/usr/bin/env bash
# Benchmarks: Go micro-benchmarks, then each stage's comparison against a
# reference measured in the same run, printed as ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== go benchmarks"
go test -run '^$' -bench . -benchmem -benchtime "${BENCHTIME:-1s}" ./... | grep -E '^(Benchmark|ok|PASS|FAIL|pkg)' || true
for s in scripts/bench-*.sh; do
  [ -x "$s" ] || continue
  echo "== $s"
  "$s"
done
