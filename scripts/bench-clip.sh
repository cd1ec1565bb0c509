#!/usr/bin/env bash
# Capture's frame rate while an incident clip is written (issue 24):
# clip's BenchmarkCaptureWhileClipping ingests 1280x720 JPEG frames of
# ../shared/data/pan720p.mp4 through capture into a ring, alone and while
# clips of that ring are written back to back, alternating in rounds in
# one run; the row is clipping frames/s against idle frames/s (aim: capture
# keeps >= 95% of its rate). Env: CLIP_BENCHTIME (go test -benchtime, 2000x).
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/data/pan720p.mp4
if [ ! -f "$data" ]; then
  echo "RESULT clip-ingest skipped $data absent (sample data next to the repository)"
  exit 0
fi
command -v ffmpeg >/dev/null || { echo "RESULT clip-ingest skipped ffmpeg not installed (make deps)"; exit 0; }
out=$(go test -run '^$' -bench '^BenchmarkCaptureWhileClipping$' -benchtime "${CLIP_BENCHTIME:-2000x}" ./clip/)
echo "$out"
echo "$out" | awk '/^BenchmarkCaptureWhileClipping/ {
  for (i = 1; i < NF; i++) m[$(i + 1)] = $i
  printf "RESULT clip-ingest %.0fframes/s %.0fframes/s %.3f >=0.95\n", m["clipping-frames/s"], m["idle-frames/s"], m["clipping/idle"]
  found = 1
} END { if (!found) { print "RESULT clip-ingest failed no benchmark line"; exit 1 } }'
