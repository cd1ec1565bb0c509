#!/usr/bin/env bash
# ROS 2 ingest benchmark: edged's Cyclone DDS ingest (package ros2/dds
# readers, cdr decoding, Release; bench/ros2/ingest) against a plain
# Cyclone DDS C subscriber with idlc-generated types (bench/ros2/sub.c),
# receiving the same real streams in the same run: 3 topics of 1280x720
# rgb8 sensor_msgs/Image at 30 Hz plus JointState at 1 kHz from a C
# publisher (bench/ros2/pub.c), as scripts/bench-ros.sh does for ROS1, on
# a private domain id over loopback (dds.LoopbackConfig). Both
# subscribers run at the same time against the same publisher, as in
# scripts/bench-ros.sh, so that the machine's load swings land on both
# sides of the ratio (one after the other, a swing landed on one side
# only). Prints each side's CPU seconds per GB received, drops and
# sequence gaps, context switches and wake-ups (voluntary switches) per
# message, and the ratio edged/C (aim: <= 1.0), also as a RESULT
# line for make bench's table (bench/benchtable).
#
# Usage: scripts/bench-ros2.sh [SECONDS]   (default 15; env
# CAMERAS, WIDTH, HEIGHT, IMG_HZ, JOINT_HZ change the load, DOMAIN the
# domain id, default random 100..229)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_RUN=${1:-15}
CAMERAS=${CAMERAS:-3} WIDTH=${WIDTH:-1280} HEIGHT=${HEIGHT:-720} IMG_HZ=${IMG_HZ:-30} JOINT_HZ=${JOINT_HZ:-1000}
DOMAIN=${DOMAIN:-$((100 + RANDOM % 130))}

for bin in gcc idlc go python3; do
  command -v "$bin" >/dev/null || { echo "bench-ros2: $bin is not installed (run make deps)" >&2; exit 1; }
done
[ -f /usr/include/dds/dds.h ] || { echo "bench-ros2: cyclonedds-dev is not installed (run make deps)" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "building the C publisher and subscriber..."
idlc -o "$work" ros2/ddstest/testdata/ros2.idl 2>/dev/null
gcc -O2 -o "$work/pub" bench/ros2/pub.c "$work/ros2.c" -I"$work" -lddsc
gcc -O2 -o "$work/sub" bench/ros2/sub.c "$work/ros2.c" -I"$work" -lddsc
echo "building edged's ingest..."
go build -o "$work/ingest" ./bench/ros2/ingest

CYCLONEDDS_URI=$("$work/ingest" loopback-config)
export CYCLONEDDS_URI

start() { # start NAME CMD...: in its own process group, output to $work/NAME.log
  local name=$1; shift
  setsid "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
}

start pub "$work/pub" "$DOMAIN" "$CAMERAS" "$WIDTH" "$HEIGHT" "$IMG_HZ" "$JOINT_HZ"
for _ in $(seq 100); do grep -q '^ready' "$work/pub.log" && break; sleep 0.1; done
grep -q '^ready' "$work/pub.log" || { cat "$work/pub.log" >&2; exit 1; }

echo "domain $DOMAIN: receiving for ${SECONDS_RUN}s with both subscribers at once..."
start c "$work/sub" "$SECONDS_RUN" "$DOMAIN" "$CAMERAS"
"$work/ingest" "$SECONDS_RUN" "$DOMAIN" "$CAMERAS" >"$work/edged.log" 2>&1 || { cat "$work/edged.log" >&2; exit 1; }
# each warms up on its own (until every topic delivered): wait for the C side's line
for _ in $(seq 600); do grep -q '^c ' "$work/c.log" && break; sleep 0.1; done
grep -q '^c ' "$work/c.log" || { echo "bench-ros2: the C subscriber reported nothing:" >&2; cat "$work/c.log" >&2; exit 1; }

grep -v "^edged " "$work/edged.log" >&2 || true
edged=$(grep '^edged ' "$work/edged.log" | tail -1)
c=$(grep '^c ' "$work/c.log" | tail -1)
echo "$edged"
echo "$c"
field() { sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p" <<<"$2"; }
python3 - "$(field bytes "$edged")" "$(field cpu_s "$edged")" "$(field bytes "$c")" "$(field cpu_s "$c")" "$SECONDS_RUN" \
  "$(field drops "$edged")" "$(field seq_gaps "$edged")" "$(field drops "$c")" "$(field seq_gaps "$c")" \
  "$(field messages "$edged")" "$(field ctxsw "$edged")" "$(field wakeups "$edged")" \
  "$(field messages "$c")" "$(field ctxsw "$c")" "$(field wakeups "$c")" <<'PY'
import sys
eb, ec, cb, cc, secs, ed, eg, cd, cg, em, esw, ewk, cm, csw, cwk = map(float, sys.argv[1:])
e = ec / (eb / 1e9); r = cc / (cb / 1e9)
em, cm = max(em, 1), max(cm, 1)
print(f"edged: {eb/1e6/secs:7.1f} MB/s received, {e:.3f} CPU s/GB, {ed:.0f} drops, {eg:.0f} seq gaps, "
      f"{esw/em:.2f} context switches and {ewk/em:.2f} wake-ups per message")
print(f"C    : {cb/1e6/secs:7.1f} MB/s received, {r:.3f} CPU s/GB, {cd:.0f} drops, {cg:.0f} seq gaps, "
      f"{csw/cm:.2f} context switches and {cwk/cm:.2f} wake-ups per message")
print(f"ratio edged/C CPU per GB: {e/r:.2f} (aim <= 1.0)")
print(f"RESULT ros2-ingest-cpu-per-GB {e:.3f}s/GB {r:.3f}s/GB {e/r:.2f} <=1.0")
PY
