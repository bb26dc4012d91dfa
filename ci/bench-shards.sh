#!/usr/bin/env bash
# A million devices as shard processes on this machine: the ward of ci/bench-devices.sh
# (ci/load-scenario.py, DEVICES / 4 patients, four devices each), its golden file recorded once at
# --speed max (kept in OUT and reused while the scenario is unchanged; a million devices take about
# 50 minutes to record, so ci/bench/golden/ keeps that one: its traffic digest says when the
# scenario's traffic has changed since, and then `rm` it and record again), then SHARDS `vitalsim run --shard I/SHARDS` processes keeping one start
# instant against one reference SUT in a process of its own, and `vitalsim merge` of their results:
# the merged verdict is the run's. GNU time measures every process; prints the shards' summed peak
# RSS and CPU time, per device and per device-second of the scenario, and writes them under OUT.
# Usage: ci/bench-shards.sh [DEVICES [SHARDS]]   (default: 1000000 10)
# Environment: SPEED (default 1: the scenario's pace), DURATION (default 30m; at least 25m: the
# ward's events start at 10-20 min), LEAD (seconds from launch to the start instant; default 60 s
# and 0.4 s per 1,000 devices: every shard reads the whole scenario first), OUT (default
# out/bench-shards), VITALSIM_BIN (measure that binary instead of building a release one), PROFILE
# (the shards' SUT profile, `--sut`; default ci/bench/vitalsim-sse.yaml, which takes the alerts from
# the SUT's event stream, as in the million-device run that passed; PROFILE= (empty) for the
# reference SUT's own, which polls the alert list: ten shards reading a list of 1,600 alerts on
# two cores fell behind, docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
devices="${1:-1000000}"
shards="${2:-10}"
speed="${SPEED:-1}"
duration="${DURATION:-30m}"
lead="${LEAD:-$((60 + devices * 4 / 10000))}"
out="${OUT:-out/bench-shards}"
profile=()
profile_file="${PROFILE-ci/bench/vitalsim-sse.yaml}"
[ -n "$profile_file" ] && profile=(--sut "$profile_file")
if [ -n "${VITALSIM_BIN:-}" ]; then
  bin="$VITALSIM_BIN"
else
  swift build -c release --product vitalsim >/dev/null 2>&1
  bin=".build/release/vitalsim"
fi
name="ward-$devices"
run="$out/$name-$shards-shards"
mkdir -p "$out" "$run"
rm -f "$run"/shard-*.json "$run"/time-* "$run"/sut.sqlite*
sut_pid=""
cleanup() { [ -n "$sut_pid" ] && pkill -TERM -P "$sut_pid"; wait 2>/dev/null || true; }
trap cleanup EXIT

python3 ci/load-scenario.py $((devices / 4)) "$duration" "$run/$name.yaml.new" "$name"
kept="ci/bench/golden/$name.golden.yaml"
if cmp -s "$run/$name.yaml.new" "$out/$name.yaml" && [ -f "$out/golden/$name.golden.yaml" ]; then
  rm "$run/$name.yaml.new"
  echo "reusing $out/golden/$name.golden.yaml (the scenario is unchanged)"
elif [ -f "$kept" ]; then
  mkdir -p "$out/golden"
  mv "$run/$name.yaml.new" "$out/$name.yaml"
  cp "$kept" "$out/golden/"
  echo "using $kept (recorded once; the run's traffic digest checks it still fits)"
else
  mv "$run/$name.yaml.new" "$out/$name.yaml"
  rm -f "$out/golden/$name.golden.yaml"
  echo "recording $out/golden/$name.golden.yaml at --speed max"
  CI= /usr/bin/time -f "%e %U %S %M" -o "$out/record.time" "$bin" record "$out/$name.yaml" --golden-dir "$out/golden" \
    >"$out/record.log" 2>&1 || { cat "$out/record.log" >&2; exit 3; }
  echo "recorded in $(cut -d' ' -f1 "$out/record.time") s"
fi
scenario="$out/$name.yaml"

/usr/bin/time -f "%e %U %S %M" -o "$run/time-sut" "$bin" serve --port 0 --self-signed --database "$run/sut.sqlite" \
  --rate-limit 0 --log-level error --scenario "$scenario" >"$run/sut.out" 2>"$run/sut.err" &
sut_pid=$!
for _ in $(seq 3000); do grep -q "listening on" "$run/sut.out" 2>/dev/null && break; sleep 0.1; done
grep -q "listening on" "$run/sut.out" || { echo "the reference SUT did not start: $(cat "$run/sut.err")" >&2; exit 3; }
sut="$(awk '/^listening on/ {print $3}' "$run/sut.out")"
ca="$(awk '/^ca-certificate/ {print $2}' "$run/sut.out")"

start_at=$(($(date +%s) + lead))
echo "$shards shards of $devices devices${profile_file:+ (profile $profile_file)} from $(date -u -d "@$start_at" +%H:%M:%S) UTC (in $lead s), --speed $speed"
pids=()
for i in $(seq "$shards"); do
  /usr/bin/time -f "%e %U %S %M" -o "$run/time-$i" "$bin" run "$scenario" --golden-dir "$out/golden" "${profile[@]}" --target "$sut" \
    --cacert "$ca" --speed "$speed" --shard "$i/$shards" --start-at "$start_at" --result "$run/shard-$i.json" \
    >"$run/shard-$i.log" 2>&1 &
  pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
# GNU time passes no signal on: stop the SUT itself (its peak RSS and CPU are still written).
pkill -TERM -P "$sut_pid"; wait "$sut_pid" 2>/dev/null || true; sut_pid=""
[ "$failed" -eq 0 ] || echo "$failed shard process(es) exited with an error (their logs: $run/shard-*.log)"

status=0
/usr/bin/time -f "%e %U %S %M" -o "$run/time-merge" "$bin" merge "$run"/shard-*.json --json "$run/verdict.json" \
  >"$run/merge.log" 2>&1 || status=$?
tail -n 3 "$run/merge.log"
python3 - "$run" "$devices" "$shards" "$duration" "$status" "$speed" <<'EOF' | tee "$run/summary.txt"
import json, re, sys
run, devices, shards, duration, status = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
speed = sys.argv[6]
def timed(name):
    wall, user, sys_, rss = open(f"{run}/time-{name}").read().split("\n")[-2].split()
    return float(wall), float(user) + float(sys_), int(rss) / 1024
parts = {m.group(2): int(m.group(1)) for m in re.finditer(r"(\d+)([hms])", duration)}
seconds = parts.get("h", 0) * 3600 + parts.get("m", 0) * 60 + parts.get("s", 0)
rows = [timed(i) for i in range(1, shards + 1)]
rss = sum(r[2] for r in rows)
cpu = sum(r[1] for r in rows)
sut = timed("sut")
merge = timed("merge")
verdict = json.load(open(f"{run}/verdict.json"))["scenarios"][0]
checks = verdict.get("checks", [])
passed = sum(1 for c in checks if c.get("passed"))
readings = sum(verdict.get("readings", {}).values())
print(f"devices {devices:,} in {shards} shards; readings {readings:,}; merged verdict: "
      + ("passed" if status == 0 else f"failed (exit {status})") + f", {passed:,} of {len(checks):,} checks passed")
print(f"shards: wall {max(r[0] for r in rows):.0f} s (longest); CPU {cpu:.1f} s in all, {min(r[1] for r in rows):.1f}-{max(r[1] for r in rows):.1f} s each; "
      + f"peak RSS {rss:.0f} MB summed, {min(r[2] for r in rows):.0f}-{max(r[2] for r in rows):.0f} MB each")
print(f"per device: {rss * 1024 * 1024 / devices:.0f} bytes of peak RSS; "
      + f"{cpu / devices / seconds * 1e6:.2f} µs of CPU per second of the {duration} scenario")
print(f"reference SUT: CPU {sut[1]:.1f} s, peak RSS {sut[2]:.0f} MB; merge: {merge[0]:.1f} s, peak RSS {merge[2]:.0f} MB")
with open(f"{run}/../sharded.csv", "a") as f:
    if f.tell() == 0:
        f.write("devices,shards,speed,cpu_s,max_rss_mb,passed\n")
    f.write(f"{devices},{shards},{speed},{cpu:.1f},{rss:.0f},{'yes' if status == 0 else 'no'}\n")
with open(f"{run}/shards.csv", "w") as f:
    f.write("shard,wall_s,cpu_s,max_rss_mb\n")
    for i, r in enumerate(rows, 1):
        f.write(f"{i},{r[0]},{r[1]:.2f},{r[2]:.0f}\n")
EOF
exit "$status"
