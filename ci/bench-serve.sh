#!/usr/bin/env bash
# Reference SUT ingestion benchmark: wrk over HTTP/1.1 keep-alive against a release
# `vitalsim serve` with a fresh SQLite database, one reading per request; then the server's own
# counters and exact alert-latency quantiles from /metrics. Usage: ci/bench-serve.sh [SECONDS] [CONNECTIONS]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-30}"
connections="${2:-64}"
scratch="${SCRATCH:-.build}"   # the build folder
swift build -c release --product vitalsim --scratch-path "$scratch" >/dev/null 2>&1
dir="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
"$scratch/release/vitalsim" serve --port 0 --database "$dir/bench.sqlite" --rate-limit 0 >"$dir/out" 2>"$dir/err" &
pid=$!
for _ in $(seq 100); do grep -q "listening on" "$dir/out" 2>/dev/null && break; sleep 0.1; done
url="$(awk '/^listening on/ {print $3}' "$dir/out")"
echo "server: $url (SQLite WAL, synchronous=FULL, group commit); wrk -t2 -c$connections -d${duration}s"
wrk -t2 -c"$connections" -d"${duration}s" --latency -s ci/bench/serve.lua "$url" | tee "$dir/wrk"
metrics="$(curl -s "$url/metrics")"
accepted="$(echo "$metrics" | awk '/^vitalsim_readings_total\{outcome="accepted",source="observations"\}/ {print $2}')"
alerts="$(echo "$metrics" | awk '/^vitalsim_alert_latency_seconds_count/ {print $2}')"
commits="$(echo "$metrics" | awk '/^vitalsim_storage_commits_total/ {print $2}')"
echo "server accepted readings: $accepted  ($(awk -v a="$accepted" -v d="$duration" 'BEGIN {printf "%.0f", a / d}') readings/s)"
echo "storage commits: ${commits:-?}  alerts: $alerts"
echo "$metrics" | awk '/^vitalsim_alert_latency_recent_seconds/ {printf "alert latency %s: %.2f ms\n", $1, $2 * 1000}'
echo "$metrics" | grep -E '^vitalsim_http_requests_total' | grep -v 'status="200"' || true
echo "peak RSS of the server: $(awk '/VmHWM/ {print $2, $3}' /proc/$pid/status)"
