#!/usr/bin/env bash
# Installs what edged's build, tests and demo need, idempotently: Debian
# packages (the real ROS1 master and tools, mosquitto, libjpeg-turbo,
# ffmpeg, roscpp for the comparison benchmark, Cyclone DDS for ROS 2,
# dpkg-dev and lintian for the packaging test), the Go modules, and the
# staticcheck linter. Safe to run again: it installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  ros-core python3-rospy python3-sensor-msgs python3-rosbag python3-genpy
  python3-roslz4 python3-actionlib python3-numpy python3-pil
  mosquitto mosquitto-clients libturbojpeg0-dev pkg-config gcc g++
  ffmpeg libroscpp-dev chromium systemd tesseract-ocr
  cyclonedds-dev cyclonedds-tools
  dpkg-dev lintian man-db
)
STATICCHECK_VERSION=v0.8.2  # staticcheck 2026.2.2
MSGP_VERSION=v1.6.5         # the generator of uplink/wire's codec

need_apt=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || need_apt+=("$p")
done
if ((${#need_apt[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "deps: missing Debian packages: ${need_apt[*]}; run as root or: sudo apt-get install ${need_apt[*]}" >&2
    exit 1
  fi
  echo "deps: installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

# go.mod's go directive is the one statement of the Go version edged needs;
# read it from there so this script and go.mod cannot disagree.
GO_WANT=$(sed -n 's/^go \([0-9][0-9.]*\)$/\1/p' go.mod)
if ! command -v go >/dev/null 2>&1; then
  if [ -x /usr/local/go/bin/go ]; then export PATH=/usr/local/go/bin:$PATH; else
    echo "deps: Go $GO_WANT or newer is required (go.mod); install it to /usr/local/go" >&2; exit 1
  fi
fi
GO_HAVE=$(GOTOOLCHAIN=local go env GOVERSION | sed 's/^go//')
if [ "$(printf '%s\n%s\n' "$GO_WANT" "$GO_HAVE" | sort -V | head -n1)" != "$GO_WANT" ]; then
  echo "deps: go.mod needs Go $GO_WANT or newer, found $GO_HAVE at $(command -v go); install a newer Go to /usr/local/go" >&2
  exit 1
fi
go mod download

mkdir -p bin
if [ ! -x bin/staticcheck ] || ! bin/staticcheck -version 2>/dev/null | grep -q "(${STATICCHECK_VERSION#v})"; then
  echo "deps: installing staticcheck $STATICCHECK_VERSION into bin/"
  GOBIN="$PWD/bin" go install "honnef.co/go/tools/cmd/staticcheck@$STATICCHECK_VERSION"
fi
if [ ! -x bin/msgp ]; then
  echo "deps: installing msgp $MSGP_VERSION into bin/"
  GOBIN="$PWD/bin" go install "github.com/tinylib/msgp@$MSGP_VERSION"
fi
# versitygw, the S3 server the object-store tests start (built once from
# the Go module proxy into a cache directory; scripts/versitygw.sh).
scripts/versitygw.sh >/dev/null
