#!/usr/bin/env bash
# ROS 2 ingest benchmark: edged's Cyclone DDS ingest (package ros2/dds
# readers, cdr decoding, Release; bench/ros2/ingest) against a plain
# Cyclone DDS C subscriber with idlc-generated types (bench/ros2/sub.c),
# receiving the same real streams in the same run: 3 topics of 1280x720
# rgb8 sensor_msgs/Image at 10 Hz (84 MB/s; at 30 Hz, 250 MB/s to each
# subscriber, the publisher and the two subscribers overran this 2-core
# machine and fell behind: void runs) plus JointState at 1 kHz from a C
# publisher (bench/ros2/pub.c), as scripts/bench-ros.sh does for ROS1, on
# a private domain id over loopback (dds.LoopbackConfig). Both
# subscribers run at the same time against the same publisher, as in
# scripts/bench-ros.sh, so that the machine's load swings land on both
# sides of the ratio (one after the other, a swing landed on one side
# only). Prints each side's CPU seconds per GB received, drops and
# sequence gaps, context switches and wake-ups (voluntary switches) per
# message, and the ratio edged/C (aim: <= 1.0), also as a RESULT
# line for make bench's table (bench/benchtable). Both measure one
# wall-clock window (BENCH_START); a run where the two did not receive
# the same messages (one fell behind and the publisher dropped for it)
# fails: its row says why, and the script exits 1 (bench/ingestcmp).
#
# Usage: scripts/bench-ros2.sh [SECONDS]   (default 15; env
# CAMERAS, WIDTH, HEIGHT, IMG_HZ, JOINT_HZ change the load, DOMAIN the
# domain id, default random 100..229; WARMUP, default 5, is the seconds
# both subscribers get to warm up before the window starts)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_RUN=${1:-15}
CAMERAS=${CAMERAS:-3} WIDTH=${WIDTH:-1280} HEIGHT=${HEIGHT:-720} IMG_HZ=${IMG_HZ:-10} JOINT_HZ=${JOINT_HZ:-1000}
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
go build -o "$work/ingestcmp" ./bench/ingestcmp

# Every process gets one configuration: edged's loopback domain, with
# the datagrams a machine streaming raw images over loopback would use
# (64 KB fragments, not Cyclone's 1344 B: a 2.76 MB image is 43
# datagrams, not ~2,000) and socket receive buffers up to 4 MB. With
# Cyclone's defaults this 2-core machine could not carry the load for
# the publisher and both subscribers: both fell behind (seq gaps), at
# 30 Hz and at 10 Hz, and every run was void.
CYCLONEDDS_URI="$("$work/ingest" loopback-config),<CycloneDDS><Domain><General><MaxMessageSize>65500B</MaxMessageSize><FragmentSize>65000B</FragmentSize></General><Internal><SocketReceiveBufferSize min=\"default\" max=\"4MB\"/></Internal></Domain></CycloneDDS>"
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
# Both measure the same wall-clock window, from WARMUP seconds on (each
# warms up before it, until every topic delivered): their counts of the
# same streams then agree to a message or so, and bench/ingestcmp can
# hold them to it.
window_start=$(python3 -c "import time; print(f'{time.time() + ${WARMUP:-5}:.3f}')")
export BENCH_START=$window_start
start c "$work/sub" "$SECONDS_RUN" "$DOMAIN" "$CAMERAS"
"$work/ingest" "$SECONDS_RUN" "$DOMAIN" "$CAMERAS" >"$work/edged.log" 2>&1 || { cat "$work/edged.log" >&2; exit 1; }
# the C side ends its window at about the same time: wait for its line
for _ in $(seq 600); do grep -q '^c ' "$work/c.log" && break; sleep 0.1; done
grep -q '^c ' "$work/c.log" || { echo "bench-ros2: the C subscriber reported nothing:" >&2; cat "$work/c.log" >&2; exit 1; }

grep -v "^edged " "$work/edged.log" >&2 || true
edged=$(grep '^edged ' "$work/edged.log" | tail -1)
c=$(grep '^c ' "$work/c.log" | tail -1)
echo "$edged"
echo "$c"
# A CPU ratio from unequal work means nothing: ingestcmp (the owner of
# that rule, shared with scripts/bench-ros.sh) fails the run (RESULT ...
# failed unequal work, exit 1) when edged received other bytes or
# messages than the C subscriber, or seq gaps it did not see.
"$work/ingestcmp" -name ros2-ingest-cpu-per-GB -seconds "$SECONDS_RUN" "$edged" "$c"
