#!/usr/bin/env bash
# Harness transport benchmark (issue 4): the harness's own HTTPS (libcurl) and MQTT (libmosquitto)
# transports against local servers, side by side with wrk and mosquitto_pub against the same servers
# in the same run, and the harness's memory for 10,000 simulated devices.
# Usage: ci/bench-harness.sh [COUNT] [SECONDS]   (COUNT requests/messages per harness run; SECONDS per wrk run)
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-100000}"
seconds="${2:-10}"
swift build -c release --product vitalsim >/dev/null 2>&1
bin=.build/release/vitalsim
dir="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT
wait_for() { for _ in $(seq 200); do grep -q "listening on" "$1" 2>/dev/null && return 0; sleep 0.05; done; echo "no 'listening on' in $1" >&2; exit 3; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

echo "== 1. HTTPS, a server that answers at once (ci/bench/immediate_server.py): what each client adds"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/key.pem" -out "$dir/cert.pem" -days 1 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1
python3 ci/bench/immediate_server.py "$dir/cert.pem" "$dir/key.pem" >"$dir/immediate.out" 2>&1 &
pids+=($!)
wait_for "$dir/immediate.out"
url="$(awk '/^listening on/ {print $3}' "$dir/immediate.out")"
wrk -t2 -c8 -d"${seconds}s" --latency -s ci/bench/serve.lua "$url" | grep -E "Requests/sec|^ +(50|90|99)%|Latency  "
"$bin" bench-transport --http "$url/api/v1/observations" --cacert "$dir/cert.pem" --connections 8 --count "$count"

echo "== 2. HTTPS, the reference SUT (vitalsim serve --self-signed, SQLite): sustained rate"
"$bin" serve --port 0 --self-signed --database "$dir/sut.sqlite" --rate-limit 0 --log-level error >"$dir/sut.out" 2>"$dir/sut.err" &
pids+=($!)
wait_for "$dir/sut.out"
sut="$(awk '/^listening on/ {print $3}' "$dir/sut.out")"
ca="$(awk '/^ca-certificate/ {print $2}' "$dir/sut.out")"
wrk -t2 -c8 -d"${seconds}s" --latency -s ci/bench/serve.lua "$sut" | grep -E "Requests/sec|^ +(50|90|99)%|Latency  "
"$bin" bench-transport --http "$sut/api/v1/observations" --cacert "$ca" --connections 8 --count "$count"

echo "== 3. MQTT, mosquitto (Debian package) on loopback: mosquitto_pub -l and the harness, QoS 0 and 1"
port="$(free_port)"
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\nmax_queued_messages 0\n' "$port" >"$dir/mosquitto.conf"
mosquitto -c "$dir/mosquitto.conf" >"$dir/mosquitto.log" 2>&1 &
pids+=($!)
for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break; sleep 0.05; done
python3 -c "
import sys
for i in range($count):
    print('{\"readingId\":\"m/%d\",\"patientId\":\"m\",\"deviceId\":\"hr\",\"kind\":\"heart-rate\",\"value\":%d,\"unit\":\"/min\",\"timestamp\":\"2024-01-01T00:00:00Z\"}' % (i, 60 + i % 30))
" >"$dir/lines"
for qos in 0 1; do
  start=$(date +%s.%N)
  mosquitto_pub -h 127.0.0.1 -p "$port" -V mqttv5 -q "$qos" -t vitals/m/heart-rate -l <"$dir/lines"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v n="$count" -v q="$qos" 'BEGIN {printf "mosquitto_pub -l QoS %s: %d messages in %.2f s: %.0f/s\n", q, n, e - s, n / (e - s)}'
  printf "harness QoS %s: " "$qos"
  "$bin" bench-transport --mqtt "127.0.0.1:$port" --qos "$qos" --count "$count" | tr '\n' ' '
  echo
done

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
