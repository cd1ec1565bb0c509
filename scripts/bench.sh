#!/usr/bin/env bash
# Benchmarks: Go micro-benchmarks, then each stage's comparison against a
# reference measured in the same run (scripts/bench-*.sh), then one table
# of every comparison: figure, reference, ratio and aim (bench/benchtable
# reads the RESULT lines the scripts print). Exits 1 when an aim was
# missed or a script failed.
#
# A bench-*.sh script prints one RESULT line per row (or RESULT NAME
# skipped/failed REASON) and exits 0, or 1 when a row it printed missed
# its aim or failed (bench-cost.sh does). bench.sh follows each script's
# output with BENCHEXIT SCRIPT STATUS, and benchtable adds a row
# "SCRIPT failed" only when the script printed no RESULT line, exited
# with another status (a crash), or exited 1 with every row met.
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
  echo "BENCHEXIT $(basename "$s" .sh) ${PIPESTATUS[0]}" >>"$work/results"
done
echo
"$work/benchtable" "$work/results"
