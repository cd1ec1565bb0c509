#!/usr/bin/env bash
# Uplink benchmarks: durable outbox throughput (group-commit fsync vs one
# fsync per message, same run), publisher CPU per MB to a real mosquitto,
# end-to-end latency enqueue -> sink file (p50, p99), steady and with the
# broker restarted every 100 messages.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:/usr/local/go/bin:$PATH"
echo "== outbox (64 KiB messages): parallel puts share fsyncs; serial is one fsync each"
go test -run '^$' -bench 'BenchmarkPut' -benchtime 2s ./uplink/outbox/ | grep -E '^Benchmark'
echo "== publisher: 100 KB sheets + snippets to mosquitto (cpu-ms/MB of this process)"
go test -run '^$' -bench 'BenchmarkPublishSheets' -benchtime 300x ./uplink/ | grep -E '^Benchmark'
echo "== end to end: Segment() -> sink file on loopback"
go test -run '^$' -bench 'BenchmarkEndToEnd' -benchtime 500x ./uplink/ | grep -E '^Benchmark'
