#!/usr/bin/env bash
# Runs every fuzz target in the module for the given time each (default
# 30s), all of them even when one fails, and lists the failures at the
# end. New crashers land in the package's testdata/fuzz/ as Go writes
# them. A target whose only complaint is "context deadline exceeded"
# (the fuzzing deadline came while a worker was inside a long cgo call,
# which Go cannot interrupt) is reported as a warning, not a failure.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
t=${1:-30s}
failed=() warned=()
while read -r f; do
  dir=$(dirname "$f")
  for name in $(grep -o '^func Fuzz[A-Za-z0-9_]*' "$f" | cut -d' ' -f2); do
    echo "== $dir $name ($t)"
    out=$(go test "$dir" -run '^$' -fuzz "^${name}\$" -fuzztime "$t" 2>&1)
    status=$?
    echo "$out" | tail -3
    if ((status != 0)); then
      if grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input' <<<"$out"; then
        warned+=("$dir $name")
      else
        echo "$out"
        failed+=("$dir $name")
      fi
    fi
  done
done < <(grep -rl --include='*_test.go' '^func Fuzz' . | sort)
for w in "${warned[@]+"${warned[@]}"}"; do echo "fuzz: warning: $w hit the deadline inside a cgo call (no failing input)"; done
if ((${#failed[@]})); then
  printf 'fuzz: FAILED: %s\n' "${failed[@]}"
  exit 1
fi
echo "fuzz: every target passed"
