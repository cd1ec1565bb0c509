#!/usr/bin/env bash
# Builds versitygw (an S3 gateway that serves a local directory) from the
# Go module proxy into a cache directory, once per version, and prints
# the binary's path. The s3 store tests (blob/s3) and
# `make fleet-bench` start it themselves; EDGED_VERSITYGW names a binary
# to use instead.
set -euo pipefail
VERSION=${VERSITYGW_VERSION:-v1.8.0}
CACHE=${EDGED_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edged}/versitygw-$VERSION
if [[ ! -x $CACHE/versitygw ]]; then
	mkdir -p "$CACHE"
	echo "building versitygw $VERSION from the Go module proxy into $CACHE (a few minutes, once)" >&2
	GOBIN=$CACHE GOFLAGS=-buildvcs=false nice go install "github.com/versity/versitygw/cmd/versitygw@$VERSION" >&2
fi
echo "$CACHE/versitygw"
