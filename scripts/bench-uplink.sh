#!/usr/bin/env bash
# Uplink benchmarks: durable outbox throughput (group-commit fsync vs one
# fsync per message, same run), publisher CPU per MB to a real mosquitto,
# end-to-end latency enqueue -> sink file (p50, p99), steady and with the
# broker restarted every 100 messages. Rows for make bench's table:
# outbox-put-shared-fsync, a parallel put's time against a serial one's
# (aim <= 1.0: sharing fsyncs must not cost more than one each), and
# uplink-p99-steady / uplink-p99-broker-restarts, the end-to-end p99
# against the soak's aim for a sheet's delivery (500 ms, soak/check.py).
# Exits 0 once its rows are printed (bench/benchtable judges them).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/bin:/usr/local/go/bin:$PATH"
echo "== outbox (64 KiB messages): parallel puts share fsyncs; serial is one fsync each"
put=$(go test -run '^$' -bench 'BenchmarkPut' -benchtime 2s ./uplink/outbox/ | grep -E '^Benchmark')
echo "$put"
echo "== publisher: 100 KB sheets + snippets to mosquitto (cpu-ms/MB of this process)"
go test -run '^$' -bench 'BenchmarkPublishSheets' -benchtime 300x ./uplink/ | grep -E '^Benchmark'
echo "== end to end: Segment() -> sink file on loopback"
e2e=$(go test -run '^$' -bench 'BenchmarkEndToEnd' -benchtime 500x ./uplink/ | grep -E '^Benchmark')
echo "$e2e"
printf '%s\n%s\n' "$put" "$e2e" | awk '
function metrics(   i) { delete m; for (i = 2; i < NF; i++) m[$(i + 1)] = $i }
/^BenchmarkPut-/ { metrics(); par = m["ns/op"] }
/^BenchmarkPutSerial-/ { metrics(); ser = m["ns/op"] }
/^BenchmarkEndToEnd\/steady-/ { metrics(); steady = m["p99-ms"] }
/^BenchmarkEndToEnd\/broker-restarts-/ { metrics(); restarts = m["p99-ms"] }
END {
  if (par && ser) printf "RESULT outbox-put-shared-fsync %.0fns/op %.0fns/op %.3f <=1.0\n", par, ser, par / ser
  else print "RESULT outbox-put-shared-fsync failed no benchmark line"
  if (steady != "") printf "RESULT uplink-p99-steady %.1fms 500ms %.4f <=1.0\n", steady, steady / 500
  else print "RESULT uplink-p99-steady failed no benchmark line"
  if (restarts != "") printf "RESULT uplink-p99-broker-restarts %.1fms 500ms %.4f <=1.0\n", restarts, restarts / 500
  else print "RESULT uplink-p99-broker-restarts failed no benchmark line"
}'
