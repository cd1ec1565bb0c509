#!/usr/bin/env bash
# Contact-sheet benchmark (issue 3): 20 frames of 1280x720 JPEG from
# ../shared/data/pan720p.mp4 -> one sheet, compared in the same run, as
# ratios of CPU time, with
#   - the C floor: bench/sheet/floor/floor.c, compiled here with gcc -O2,
#     doing the same work in plain C: the same 20 frames, decoded with
#     TurboJPEG at the same DCT scale (2/8 for 720p -> 224 px tiles;
#     straight into the tile's place when a scale lands exactly on the
#     tile, never for 1280 -> 224), the same area resize into the reused
#     canvas, a badge box, one encode at the recipe's quality (84), 4:2:0;
#     edged's figure also holds the ring copies of edged run;
#   - ffmpeg building the same sheet with its tile filter from all 300
#     frames (30 fps);
#   - Go's image/jpeg with golang.org/x/image/draw;
#   - edged-yuv and floor-yuv (floor -yuv): the same sheet built in planar
#     YCbCr 4:2:0 (decode to planes, resize each plane, encode from
#     planes), the prototype of issue 25 (bench/sheet/yuv.go says what
#     integrating it would take); reported, not judged.
# Also: raw rgb8 720p -> one tile, allocations and context switches per
# sheet (the Go runtime's hand-offs around the long TurboJPEG calls), and
# the tile cache of a one-hour episode. sheetbench -only edged -n N
# builds sheets with edged alone, for perf or pprof. Env: SHEET_N (sheets per measurement, 20),
# SHEET_REPS (round-robin repetitions, median reported, 5).
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/data/pan720p.mp4
if [ ! -f "$data" ]; then
  echo "RESULT sheet skipped $data absent (sample data next to the repository)"
  exit 0
fi
for bin in ffmpeg gcc; do
  command -v "$bin" >/dev/null || { echo "RESULT sheet skipped $bin not installed (make deps)"; exit 0; }
done
[ -f /usr/include/turbojpeg.h ] || { echo "RESULT sheet skipped libturbojpeg0-dev not installed (make deps)"; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/frames"
ffmpeg -loglevel error -i "$data" -q:v 3 "$work/frames/f%04d.jpg"
gcc -O2 -Wall -o "$work/floor" bench/sheet/floor/floor.c -lturbojpeg
go build -o "$work/sheetbench" ./bench/sheet
"$work/sheetbench" -all "$work/frames" -floor "$work/floor" -n "${SHEET_N:-20}" -reps "${SHEET_REPS:-5}"
