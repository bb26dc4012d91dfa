#!/usr/bin/env bash
# Harness transport benchmark: the harness's own HTTPS (libcurl) and MQTT (libmosquitto)
# transports against local servers, side by side with wrk and mosquitto_pub against the same servers
# in the same run, and the harness's memory for 10,000 simulated devices.
# Usage: ci/bench-harness.sh [COUNT] [SECONDS] [SECTIONS]   (COUNT requests/messages per harness run; SECONDS
# per wrk run; SECTIONS the digits of the sections to run, all by default)
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-100000}"
seconds="${2:-10}"
sections="${3:-1234}"   # which sections to run, e.g. 3
want() { [[ "$sections" == *"$1"* ]]; }
# SCRATCH: the build folder (default .build), e.g. a separate release folder while .build is busy;
# VITALSIM_BIN: measure that binary instead of building one (to compare two builds in one session).
scratch="${SCRATCH:-.build}"
if [ -n "${VITALSIM_BIN:-}" ]; then
  bin="$VITALSIM_BIN"
else
  swift build -c release --product vitalsim --scratch-path "$scratch" >/dev/null 2>&1
  bin="$scratch/release/vitalsim"
fi
dir="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT
wait_for() { for _ in $(seq 200); do grep -q "listening on" "$1" 2>/dev/null && return 0; sleep 0.05; done; echo "no 'listening on' in $1" >&2; exit 3; }

if want 1; then
echo "== 1. HTTPS, a server that answers at once (ci/bench/immediate_server.py): what each client adds"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/key.pem" -out "$dir/cert.pem" -days 1 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1
python3 ci/bench/immediate_server.py "$dir/cert.pem" "$dir/key.pem" >"$dir/immediate.out" 2>&1 &
pids+=($!)
wait_for "$dir/immediate.out"
url="$(awk '/^listening on/ {print $3}' "$dir/immediate.out")"
wrk -t2 -c8 -d"${seconds}s" --latency -s ci/bench/serve.lua "$url" | grep -E "Requests/sec|^ +(50|90|99)%|Latency  "
"$bin" bench-transport --http "$url/api/v1/observations" --cacert "$dir/cert.pem" --connections 8 --count "$count"

fi

if want 2; then
echo "== 2. HTTPS, the reference SUT (vitalsim serve --self-signed, SQLite): sustained rate"
# Each client gets a fresh SUT (an empty database; a SUT that has just stored the other client's
# readings is slower) and the harness sends as many requests as wrk managed in its run, so both
# leave the same number of readings behind. Two rounds, alternating.
fresh_sut() {
  "$bin" serve --port 0 --self-signed --database "$dir/sut-$1.sqlite" --rate-limit 0 --log-level error >"$dir/sut-$1.out" 2>"$dir/sut-$1.err" &
  sut_pid=$!; pids+=($sut_pid)
  wait_for "$dir/sut-$1.out"
  sut="$(awk '/^listening on/ {print $3}' "$dir/sut-$1.out")"
  ca="$(awk '/^ca-certificate/ {print $2}' "$dir/sut-$1.out")"
}
for round in 1 2; do
  fresh_sut "wrk$round"
  wrk -t2 -c8 -d"${seconds}s" --latency -s ci/bench/serve.lua "$sut" >"$dir/wrk$round.out"
  grep -E "requests in|Requests/sec|^ +(50|90|99)%|Non-2xx" "$dir/wrk$round.out"
  kill "$sut_pid"; wait "$sut_pid" 2>/dev/null || true
  sent="$(awk '/requests in/ {print $1}' "$dir/wrk$round.out")"
  fresh_sut "harness$round"
  "$bin" bench-transport --http "$sut/api/v1/observations" --cacert "$ca" --connections 8 --count "$sent"
  kill "$sut_pid"; wait "$sut_pid" 2>/dev/null || true
done
fi

if want 3; then
echo "== 3. MQTT, mosquitto (Debian package) on loopback: mosquitto_pub -l and the harness, QoS 0 and 1"
# Every client's figure is checked against what the broker itself counted as received ($SYS, refreshed
# every second), so a client that drops messages cannot look fast.
. ci/bench/mosquitto.sh
start_mosquitto $'max_queued_messages 0\n'
# mosquitto_pub is fed 30,000 lines per run for QoS 1 (as many runs as needed; why:
# ci/bench/mosquitto.sh), the start-up of a run with no input measured and subtracted.
mosquitto_lines "$count"
runs=$(ls "$dir"/chunk.* | wc -l)
startup=$(pub_startup "$runs")
echo "mosquitto_pub start-up (no input): $startup s per run"
before=$(received)
for qos in 0 1; do
  start=$(date +%s.%N)
  if [ "$qos" = 0 ]; then
    n=1; mosquitto_pub -h 127.0.0.1 -p "$port" -V mqttv5 -q 0 -t vitals/m/heart-rate -l <"$dir/lines"
  else
    n=$runs; for f in "$dir"/chunk.*; do mosquitto_pub -h 127.0.0.1 -p "$port" -V mqttv5 -q 1 -t vitals/m/heart-rate -l <"$f"; done
  fi
  end=$(date +%s.%N)
  after=$(received)
  awk -v s="$start" -v e="$end" -v n="$count" -v got="$((after - before))" -v q="$qos" -v runs="$n" -v up="$startup" 'BEGIN {
    t = e - s - runs * up
    printf "mosquitto_pub -l QoS %s (%d run(s)): %d lines, broker received %d, %.2f s without start-up: %.0f/s\n", q, runs, n, got, t, got / t }'
  before=$after
  printf "harness QoS %s: " "$qos"
  "$bin" bench-transport --mqtt "127.0.0.1:$port" --qos "$qos" --count "$count" | tr '\n' ' '
  after=$(received)
  # QoS 0 ends with one QoS 1 message that flushes the connection.
  echo "(broker received $((after - before - (qos == 0 ? 1 : 0))))"
  before=$after
done
rc=0; mosquitto_pub -h 127.0.0.1 -p "$port" -V mqttv5 -q 1 -t vitals/m/heart-rate -l <"$dir/lines" || rc=$?
after=$(received)
echo "for the record, mosquitto_pub -l QoS 1 fed all $count lines in one run: broker received $((after - before)), exit status $rc"
fi

if want 4; then
echo "== 4. Memory: the harness (vitalsim run's planner and runner) with 10,000 simulated devices"
# A fresh SUT: the one above holds the alerts of section 2's traffic, and the harness polls the alert
# list throughout a run (every poll would download all of them).
"$bin" serve --port 0 --self-signed --database "$dir/sut4.sqlite" --rate-limit 0 --log-level error >"$dir/sut4.out" 2>"$dir/sut4.err" &
pids+=($!)
wait_for "$dir/sut4.out"
sut4="$(awk '/^listening on/ {print $3}' "$dir/sut4.out")"
ca4="$(awk '/^ca-certificate/ {print $2}' "$dir/sut4.out")"
python3 ci/bench/population.py 2500 5m "$dir/population.yaml"
"$bin" bench-transport --scenario "$dir/population.yaml" --http "$sut4" --cacert "$ca4" --connections 8
fi
