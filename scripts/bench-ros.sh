#!/usr/bin/env bash
# Ingest benchmark: edged's pure-Go subscriber against a minimal roscpp
# subscriber, both receiving the same real streams in the same run:
# 3 topics of 1280x720 rgb8 Image at 30 Hz plus JointState at 1 kHz from a
# roscpp publisher (bench/roscpp/pub.cpp). Prints each side's CPU seconds
# per GB received, context switches and wake-ups per message, drops and
# sequence gaps, and the ratio edged/roscpp
# (aim: <= 1.0), also as a RESULT line for make bench's table
# (bench/benchtable). A run where the two did not receive the same
# messages (edged fell behind and the publisher dropped for it) fails:
# its row says why, and the script exits 1 (bench/ingestcmp).
#
# Usage: scripts/bench-ros.sh [SECONDS]   (default 20; env CAMERAS, WIDTH,
# HEIGHT, IMG_HZ, JOINT_HZ change the load; WARMUP, default 5, is the
# seconds both subscribers get to connect before the window starts)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_RUN=${1:-20}
CAMERAS=${CAMERAS:-3} WIDTH=${WIDTH:-1280} HEIGHT=${HEIGHT:-720} IMG_HZ=${IMG_HZ:-30} JOINT_HZ=${JOINT_HZ:-1000}

for bin in rosmaster g++ pkg-config go; do
  command -v "$bin" >/dev/null || { echo "bench-ros: $bin is not installed (run make deps)" >&2; exit 1; }
done
pkg-config --exists roscpp || { echo "bench-ros: libroscpp-dev is not installed (run make deps)" >&2; exit 1; }

work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

echo "building roscpp publisher and subscriber..."
flags=$(pkg-config --cflags --libs roscpp)
g++ -O2 -std=c++17 -o "$work/pub" bench/roscpp/pub.cpp $flags
g++ -O2 -std=c++17 -o "$work/sub" bench/roscpp/sub.cpp $flags
echo "building edged's benchmark..."
go test -c -o "$work/ros.test" ./ros
go build -o "$work/ingestcmp" ./bench/ingestcmp

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
export ROS_MASTER_URI=http://127.0.0.1:$port/ ROS_HOME=$work/home ROS_LOG_DIR=$work/log ROS_IP=127.0.0.1
unset ROS_HOSTNAME
mkdir -p "$ROS_HOME" "$ROS_LOG_DIR"

start() { # start NAME CMD...: in its own process group, output to $work/NAME.log
  local name=$1; shift
  setsid "$@" >"$work/$name.log" 2>&1 &
  pids+=($!)
}

start master rosmaster --core -p "$port" -w 2
for _ in $(seq 100); do
  python3 -c "import xmlrpc.client as x; x.ServerProxy('$ROS_MASTER_URI').getPid('/b')" 2>/dev/null && break
  sleep 0.1
done
start pub "$work/pub" "$CAMERAS" "$WIDTH" "$HEIGHT" "$IMG_HZ" "$JOINT_HZ"

topics=/bench/joint_states
for ((c = 0; c < CAMERAS; c++)); do topics="$topics,/bench/cam$c/image_raw"; done

echo "receiving for ${SECONDS_RUN}s with both subscribers at once..."
# Both measure the same wall-clock window, from WARMUP seconds on (each
# connects and warms up before it): their counts of the same streams
# then agree to a message or so, and bench/ingestcmp can hold them to it.
window_start=$(python3 -c "import time; print(f'{time.time() + ${WARMUP:-5}:.3f}')")
BENCH_START=$window_start start sub "$work/sub" "$SECONDS_RUN" ${topics//,/ }
EDGED_BENCH_MASTER=$ROS_MASTER_URI EDGED_BENCH_TOPICS=$topics EDGED_BENCH_SECONDS=$SECONDS_RUN EDGED_BENCH_START=$window_start \
  "$work/ros.test" -test.run '^$' -test.bench BenchmarkIngestLive -test.benchtime 1x >"$work/edged.log" 2>&1 || {
  cat "$work/edged.log" >&2; exit 1; }
for _ in $(seq 600); do grep -q '^roscpp ' "$work/sub.log" && break; sleep 0.1; done

edged=$(grep '^edged ' "$work/edged.log" | tail -1)
roscpp=$(grep '^roscpp ' "$work/sub.log" | tail -1) || { cat "$work/sub.log" >&2; exit 1; }
echo "$edged"
echo "$roscpp"
grep BenchmarkIngestLive "$work/edged.log" || true
# A CPU ratio from unequal work means nothing: ingestcmp fails the run
# (RESULT ... failed, exit 1) when edged received other bytes or messages
# than roscpp, or seq gaps roscpp did not see.
"$work/ingestcmp" -name ros1-ingest-cpu-per-GB -seconds "$SECONDS_RUN" "$edged" "$roscpp"
