#!/usr/bin/env bash
# The transport ratios as alternating pairs in one run: PAIRS times each of
#   https-immediate  wrk -t2 -c8 and the harness (8 connections) against ci/bench/immediate_server.py
#   https-sut        the same two against the reference SUT (vitalsim serve, SQLite), each client with
#                    a fresh SUT and the harness sending as many readings as wrk did in its run
#   mqtt-qos1        mosquitto_pub -l and the harness (one connection, as vitalsim run publishes; or
#                    MQTT_CONNECTIONS) at QoS 1 against one mosquitto with its default settings, every
#                    rate checked against the broker's count
# The order within a pair alternates (odd pairs: the other client first; even: the harness first),
# so a drift of the machine's speed during the run falls on both alike. Prints every run, then per
# section the medians, ranges, the ratio of the medians and the range of the pairs' own ratios, and
# writes them to OUT (default out/bench-pairs). Exits 1 when a ratio of medians is below its target
# (HTTPS 1.0x wrk, MQTT QoS 1 1.5x mosquitto_pub), 3 when a run failed.
# Usage: ci/bench-pairs.sh [PAIRS [SECTIONS]]   (default: 5, all three: "https-immediate https-sut mqtt-qos1")
# Environment: SECONDS_PER_RUN (wrk's duration, default 10), MESSAGES (per MQTT run, default 200000),
# MQTT_CONNECTIONS (the harness's MQTT clients, default 1), VITALSIM_BIN (default: a release build in
# .build-bench), OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
pairs="${1:-5}"
sections="${2:-https-immediate https-sut mqtt-qos1}"
seconds="${SECONDS_PER_RUN:-10}"
messages="${MESSAGES:-200000}"
mqtt_connections="${MQTT_CONNECTIONS:-1}"
out="${OUT:-out/bench-pairs}"
if [ -n "${VITALSIM_BIN:-}" ]; then
  bin="$VITALSIM_BIN"
else
  swift build -c release --scratch-path .build-bench --traits Benchmarks --product vitalsim >/dev/null
  bin=".build-bench/release/vitalsim"
fi
mkdir -p "$out"
csv="$out/runs.csv"
echo "section,pair,client,rate" >"$csv"
dir="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; wait "$p" 2>/dev/null || true; done; rm -rf "$dir"; }
trap cleanup EXIT
wait_for() { for _ in $(seq 600); do grep -q "listening on" "$1" 2>/dev/null && return 0; sleep 0.05; done; echo "no 'listening on' in $1" >&2; exit 3; }
. ci/bench/mosquitto.sh
record() { echo "$1,$2,$3,$4" >>"$csv"; printf '%-16s pair %d  %-14s %10.0f/s\n' "$1" "$2" "$3" "$4"; }
# The harness's rate from a bench-transport line ("N sent, F failed in S s: R/s; ..."); a failed
# request makes the run void.
harness_rate() {
  local line
  line="$("$@")" || { echo "the harness's run failed: $line" >&2; exit 3; }
  awk '/ sent, / { split($0, a, ": "); split(a[2], b, "/s"); print b[1] }' <<<"$line"
}
wrk_run() { wrk -t2 -c8 -d"${seconds}s" -s ci/bench/serve.lua "$1" >"$dir/wrk.out"; awk '/^Requests\/sec:/ {print $2}' "$dir/wrk.out"; }
wrk_sent() { awk '/requests in/ {print $1}' "$dir/wrk.out"; }
order() { if [ $(($1 % 2)) -eq 1 ]; then echo "other harness"; else echo "harness other"; fi; }

for section in $sections; do
  case "$section" in
  https-immediate)
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$dir/key.pem" -out "$dir/cert.pem" -days 1 -subj "/CN=127.0.0.1" \
      -addext "subjectAltName=IP:127.0.0.1" >/dev/null 2>&1
    python3 ci/bench/immediate_server.py "$dir/cert.pem" "$dir/key.pem" >"$dir/immediate.out" 2>&1 &
    pids+=($!)
    wait_for "$dir/immediate.out"
    url="$(awk '/^listening on/ {print $3}' "$dir/immediate.out")"
    for p in $(seq "$pairs"); do
      for who in $(order "$p"); do
        if [ "$who" = other ]; then
          rate=$(wrk_run "$url"); record "$section" "$p" wrk "$rate"; count=$(wrk_sent)
        else
          # As many requests as wrk's run of the same pair (or of the previous one) took.
          n=${count:-$((seconds * 30000))}
          rate=$(harness_rate "$bin" bench-transport --http "$url/api/v1/observations" --cacert "$dir/cert.pem" \
            --connections 8 --count "$n")
          record "$section" "$p" harness "$rate"
        fi
      done
    done
    ;;
  https-sut)
    fresh_sut() {
      "$bin" serve --port 0 --self-signed --database "$dir/sut-$1.sqlite" --rate-limit 0 --log-level error \
        >"$dir/sut-$1.out" 2>"$dir/sut-$1.err" &
      sut_pid=$!; pids+=($sut_pid)
      wait_for "$dir/sut-$1.out"
      sut="$(awk '/^listening on/ {print $3}' "$dir/sut-$1.out")"
      ca="$(awk '/^ca-certificate/ {print $2}' "$dir/sut-$1.out")"
    }
    stop_sut() { kill "$sut_pid"; wait "$sut_pid" 2>/dev/null || true; rm -f "$dir"/sut-*.sqlite*; }
    for p in $(seq "$pairs"); do
      for who in $(order "$p"); do
        fresh_sut "$who$p"
        if [ "$who" = other ]; then
          rate=$(wrk_run "$sut"); record "$section" "$p" wrk "$rate"; sut_count=$(wrk_sent)
        else
          n=${sut_count:-$((seconds * 3500))}
          rate=$(harness_rate "$bin" bench-transport --http "$sut/api/v1/observations" --cacert "$ca" --connections 8 --count "$n")
          record "$section" "$p" harness "$rate"
        fi
        stop_sut
      done
    done
    ;;
  mqtt-qos1)
    # The broker's defaults (Receive Maximum 20 per connection); mosquitto_pub fed 30,000 lines
    # per process, its start-up measured and subtracted (ci/bench/mosquitto.sh).
    start_mosquitto
    mosquitto_lines "$messages"
    chunks=$(ls "$dir"/chunk.* | wc -l)
    startup=$(pub_startup 5)
    before=$(received)
    for p in $(seq "$pairs"); do
      for who in $(order "$p"); do
        if [ "$who" = other ]; then
          start=$(date +%s.%N)
          for f in "$dir"/chunk.*; do mosquitto_pub -h 127.0.0.1 -p "$port" -V mqttv5 -q 1 -t vitals/m/heart-rate -l <"$f"; done
          end=$(date +%s.%N)
          after=$(received)
          got=$((after - before))
          rate=$(awk -v s="$start" -v e="$end" -v n="$chunks" -v up="$startup" -v got="$got" 'BEGIN { printf "%.0f", got / (e - s - n * up) }')
          client=mosquitto_pub
        else
          client=harness
          rate=$(harness_rate "$bin" bench-transport --mqtt "127.0.0.1:$port" --qos 1 --count "$messages" \
            --connections "$mqtt_connections")
          after=$(received)
          got=$((after - before))
        fi
        [ "$got" -eq "$messages" ] || { echo "$client: the broker received $got of $messages messages" >&2; exit 3; }
        before=$after
        record "$section" "$p" "$client" "$rate"
      done
    done
    ;;
  *) echo "unknown section '$section' (https-immediate, https-sut, mqtt-qos1)" >&2; exit 2 ;;
  esac
done

python3 - "$csv" "$out/summary.txt" "$mqtt_connections" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
targets = {"https-immediate": 1.0, "https-sut": 1.0, "mqtt-qos1": 1.5}
lines, failed = [], False
for section in dict.fromkeys(r["section"] for r in rows):
    mine = [r for r in rows if r["section"] == section]
    other = next(r["client"] for r in mine if r["client"] != "harness")
    rate = {c: {int(r["pair"]): float(r["rate"]) for r in mine if r["client"] == c} for c in ("harness", other)}
    pairs = sorted(set(rate["harness"]) & set(rate[other]))
    ratios = [rate["harness"][p] / rate[other][p] for p in pairs]
    mh, mo = statistics.median(rate["harness"].values()), statistics.median(rate[other].values())
    ratio = mh / mo
    target = targets[section]
    ok = ratio >= target
    failed |= not ok
    def span(values):
        return f"{min(values):,.0f}-{max(values):,.0f}"
    connections = f"{sys.argv[3]} MQTT connection(s)" if section == "mqtt-qos1" else "8 connections"
    lines.append(
        f"{section}: harness median {mh:,.0f}/s ({span(rate['harness'].values())}), {other} median {mo:,.0f}/s "
        f"({span(rate[other].values())}); ratio of medians {ratio:.2f}x, pairs {min(ratios):.2f}-{max(ratios):.2f}x "
        f"over {len(pairs)} pairs (the harness with {connections}); target {target}x: {'met' if ok else 'NOT met'}"
    )
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
sys.exit(1 if failed else 0)
EOF
