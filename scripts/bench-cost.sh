#!/usr/bin/env bash
# Cost per camera-hour against issue 9's budget: an episode with a
# segment every 12 s, 10 minutes, built from the 1280x720 frames of
# ../shared/data/pan720p.mp4 (30 fps, cycled) through the robot's
# pipeline and received as the sink receives it; the cost line of the
# sink's copy (bytes of contact sheets, labeling sheets, snippets and
# the rest; VLM tokens to show every contact sheet and every segment's
# labeling image once, shipped or composed in the cloud), for the published
# recipe and the low-cost preset, printed next to the budget
# (bench/cost). Exits 1 after its rows when one missed its aim (make
# bench then adds no failed row). Env: COST_MINUTES (10).
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/data/pan720p.mp4
if [ ! -f "$data" ]; then
  echo "RESULT cost skipped $data absent (sample data next to the repository)"
  exit 0
fi
command -v ffmpeg >/dev/null || { echo "RESULT cost skipped ffmpeg not installed (make deps)"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/frames"
ffmpeg -loglevel error -i "$data" -q:v 3 "$work/frames/f%04d.jpg"
go build -o "$work/costbench" ./bench/cost
"$work/costbench" -frames "$work/frames" -minutes "${COST_MINUTES:-10}"
