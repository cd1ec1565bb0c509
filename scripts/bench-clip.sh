#!/usr/bin/env bash
# Capture's frame rate while incident clips are written (issue 24):
# clip's BenchmarkCaptureWhileClipping offers capture a robot's cameras
# (three of 1280x720 JPEG from ../shared/data/pan720p.mp4 at 30 Hz, on a
# wall-clock schedule), alone and while clips of their rings are written
# back to back, alternating in rounds in one run. Rows: clip-ingest, the
# frames in their ring on time per second while clipping against idle
# (aim >= 0.999: no frame lost), and clip-ingest-cpu, the capture
# threads' CPU per frame while clipping against idle (aim <= 1.20).
# Exits 0 once its rows are printed (bench/benchtable judges them).
# Env: CLIP_BENCHTIME (go test -benchtime, 1800x: 30 s a condition).
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/data/pan720p.mp4
if [ ! -f "$data" ]; then
  echo "RESULT clip-ingest skipped $data absent (sample data next to the repository)"
  exit 0
fi
command -v ffmpeg >/dev/null || { echo "RESULT clip-ingest skipped ffmpeg not installed (make deps)"; exit 0; }
out=$(go test -run '^$' -bench '^BenchmarkCaptureWhileClipping$' -benchtime "${CLIP_BENCHTIME:-1800x}" ./clip/)
echo "$out"
echo "$out" | awk '/^BenchmarkCaptureWhileClipping/ {
  for (i = 1; i < NF; i++) m[$(i + 1)] = $i
  printf "RESULT clip-ingest %.2fframes/s %.2fframes/s %.4f >=0.999\n", m["clipping-frames/s"], m["idle-frames/s"], m["clipping/idle"]
  printf "RESULT clip-ingest-cpu %.1fus/frame %.1fus/frame %.3f <=1.20\n", m["clipping-cpu-us/frame"], m["idle-cpu-us/frame"], m["cpu-clipping/idle"]
  found = 1
} END { if (!found) { print "RESULT clip-ingest failed no benchmark line"; exit 1 } }'
