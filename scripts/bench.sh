#!/usr/bin/env bash
# Benchmarks: Go micro-benchmarks, then each stage's comparison against a
# reference measured in the same run (scripts/bench-*.sh), then one table
# of every comparison: figure, reference, ratio and aim (bench/benchtable
# reads the RESULT lines the scripts print). Exits 1 when an aim was
# missed or a script failed.
#
# Env: BENCHTIME (Go benchmarks, 1s; BENCH_GO=0 skips them), BENCH_SCRIPTS
# (the scripts to run, default every executable scripts/bench-*.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/benchtable" ./bench/benchtable || exit 2
if [ "${BENCH_GO:-1}" != 0 ]; then
  echo "== go benchmarks"
  go test -run '^$' -bench . -benchmem -benchtime "${BENCHTIME:-1s}" ./... | grep -E '^(Benchmark|ok|PASS|FAIL|pkg)'
fi
for s in ${BENCH_SCRIPTS:-scripts/bench-*.sh}; do
  [ -x "$s" ] || continue
  echo "== $s"
  "$s" 2>&1 | tee -a "$work/results"
  rc=${PIPESTATUS[0]}
  ((rc == 0)) || echo "RESULT $(basename "$s" .sh) failed exit status $rc (output above)" >>"$work/results"
done
echo
"$work/benchtable" "$work/results"
