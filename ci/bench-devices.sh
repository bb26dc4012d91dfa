#!/usr/bin/env bash
# How one `vitalsim run` process's memory and CPU grow with the devices it simulates:
# for each count, a ward written by ci/load-scenario.py (COUNT / 4 patients, four devices each),
# its golden file recorded once at --speed max, then a measured run at the scenario's pace
# (--speed SPEED) against a fresh reference SUT in its own process (told the patients' profiles), so that the figures are the
# harness's alone. Prints one line per count and writes them, with a plot, under OUT.
# Usage: ci/bench-devices.sh [COUNT...]   (default: 1000 10000 30000 100000)
# Environment: SPEED (default 10), DURATION (default 30m; at least 25m: the ward's events start at 10-20 min), OUT (default out/bench-devices),
# VITALSIM_BIN (measure that binary instead of building a release one).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then counts=("$@"); else counts=(1000 10000 30000 100000); fi
speed="${SPEED:-10}"
duration="${DURATION:-30m}"
out="${OUT:-out/bench-devices}"
if [ -n "${VITALSIM_BIN:-}" ]; then
  bin="$VITALSIM_BIN"
else
  swift build -c release --product vitalsim >/dev/null 2>&1
  bin=".build/release/vitalsim"
fi
mkdir -p "$out"
dir="$(mktemp -d)"
sut_pid=""
cleanup() { [ -n "$sut_pid" ] && kill "$sut_pid" 2>/dev/null; wait 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
wait_for() { for _ in $(seq 400); do grep -q "listening on" "$1" 2>/dev/null && return 0; sleep 0.05; done; echo "no 'listening on' in $1" >&2; exit 3; }

echo "devices,patients,readings,wall_s,cpu_s,max_rss_mb,passed" > "$out/devices.csv"
for devices in "${counts[@]}"; do
  patients=$((devices / 4))
  name="ward-$devices"
  python3 ci/load-scenario.py "$patients" "$duration" "$dir/$name.yaml" "$name"
  CI= "$bin" record "$dir/$name.yaml" --golden-dir "$dir/golden" >"$dir/record-$devices.log" 2>&1 \
    || { cat "$dir/record-$devices.log" >&2; exit 3; }
  "$bin" serve --port 0 --self-signed --database "$dir/sut-$devices.sqlite" --rate-limit 0 --log-level error --scenario "$dir/$name.yaml" \
    >"$dir/sut-$devices.out" 2>"$dir/sut-$devices.err" &
  sut_pid=$!
  wait_for "$dir/sut-$devices.out"
  sut="$(awk '/^listening on/ {print $3}' "$dir/sut-$devices.out")"
  ca="$(awk '/^ca-certificate/ {print $2}' "$dir/sut-$devices.out")"
  status=0
  /usr/bin/time -f "%e %U %S %M" -o "$dir/time-$devices" "$bin" run "$dir/$name.yaml" --golden-dir "$dir/golden" \
    --target "$sut" --cacert "$ca" --speed "$speed" --json "$dir/verdict-$devices.json" >"$dir/run-$devices.log" 2>&1 || status=$?
  kill "$sut_pid"; wait "$sut_pid" 2>/dev/null || true; sut_pid=""
  cp "$dir/run-$devices.log" "$dir/verdict-$devices.json" "$out/" 2>/dev/null || true
  # GNU time writes "Command exited with non-zero status N" first when the run failed.
  read -r wall user sys rss < <(tail -n 1 "$dir/time-$devices")
  readings="$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["scenarios"][0]["readings"]; print(sum(s.values()))' "$dir/verdict-$devices.json")"
  passed="$([ "$status" -eq 0 ] && echo yes || echo "no (exit $status)")"
  line="$devices,$patients,$readings,$wall,$(python3 -c "print(round($user + $sys, 2))"),$((rss / 1024)),$passed"
  echo "$line" | tee -a "$out/devices.csv"
done
python="${PYTHON:-.venv-test/bin/python}"
"$python" ci/bench/plot_devices.py "$out/devices.csv" "$out/devices.png" "$speed" "$duration"
echo "wrote $out/devices.csv and $out/devices.png"
