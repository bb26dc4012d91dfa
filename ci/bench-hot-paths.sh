#!/usr/bin/env bash
# Benchmarks that catch regressions: VitalSim's hot paths — generation, encoding, planning,
# sending through the runner, judging — timed by ordo-one/benchmark (Benchmarks/HotPaths, built in
# release with the package trait Benchmarks in .build-bench), compared with the baseline stored in
# .benchmarkBaselines/HotPaths/main/; and, with --transports, the harness's transports against wrk
# and mosquitto_pub (ci/bench-harness.sh sections 1 and 3) against the floors below (a floor guards
# against a regression; the targets are higher).
#
# The baseline is this machine's (2 cores; docs/performance.md, "Hot-path benchmarks"): after a
# change that makes a path faster or slower on purpose, store a new one with `update` and commit it.
# Thresholds (Benchmarks/HotPaths/HotPaths.swift): a path fails when the fastest of its 40 iterations' CPU
# time grows by more than 15 % or its median allocation count by more than 2 %. Wall time is shown,
# not judged. A path faster than its thresholds also ends the check with 1 (ordo-one's rule): store
# the new baseline then. A run that could not be made (a build error, no baseline) says so, and is
# no verdict on the paths.
#
# Usage: ci/bench-hot-paths.sh [check|update] [--transports] [--filter REGEX]
#   check    run the benchmarks and compare with the baseline `main`: names each path that got
#            slower or allocates more, and exits 1 (the default)
#   update   run them and store the result as the baseline `main`
set -euo pipefail
cd "$(dirname "$0")/.."
mode=check
transports=
filter=()
while [ $# -gt 0 ]; do
  case "$1" in
    check | update) mode=$1 ;;
    --transports) transports=1 ;;
    --filter) filter=(--filter "$2"); shift ;;
    *) echo "usage: ci/bench-hot-paths.sh [check|update] [--transports] [--filter REGEX]" >&2; exit 2 ;;
  esac
  shift
done
bench() {
  swift package --scratch-path .build-bench --traits Benchmarks --allow-writing-to-package-directory \
    benchmark "$@" --target HotPaths --no-progress "${filter[@]}"
}
status=0
if [ "$mode" = update ]; then
  bench baseline update main
else
  log=$(mktemp)
  bench baseline check main 2>&1 | tee "$log" || status=1
  if [ "$status" -eq 0 ]; then
    echo "ci/bench-hot-paths.sh: every hot path within its thresholds of the baseline 'main'"
  elif grep -q "is WORSE than" "$log"; then
    echo "ci/bench-hot-paths.sh: the hot paths under 'Threshold deviations' above got slower (or allocate more) than the baseline 'main'"
  elif grep -q "is BETTER than" "$log"; then
    echo "ci/bench-hot-paths.sh: the hot paths above are faster than the baseline 'main' beyond its thresholds: if that is the change's doing, run 'ci/bench-hot-paths.sh update' and commit the baseline"
  else
    echo "ci/bench-hot-paths.sh: the benchmarks did not run to a comparison (see above): no verdict on the hot paths"
  fi
  rm -f "$log"
fi

if [ -n "$transports" ]; then
  # The floors: the harness's rate over the other client's in the same run. The targets are
  # 1.0x wrk and 1.5x mosquitto_pub; the floors are what the harness does now (2026-11-29: HTTPS
  # 0.68-0.79x wrk, MQTT QoS 1 0.94-1.22x mosquitto_pub) less this machine's run-to-run spread, so
  # that falling below one is a regression of the harness's, not noise. Raise them as it gets faster.
  https_floor=0.60
  mqtt_floor=0.85
  out=$(mktemp)
  # The release build the benchmarks use (same folder and traits, so nothing is compiled twice).
  swift build -c release --scratch-path .build-bench --traits Benchmarks --product vitalsim >/dev/null
  VITALSIM_BIN=.build-bench/release/vitalsim bash ci/bench-harness.sh 100000 10 13 | tee "$out"
  https=$(awk '/^Requests\/sec:/ { wrk = $2 } /^[0-9]+ sent, [0-9]+ failed in/ && !h { split($0, a, ": "); split(a[2], b, "/s"); h = b[1] }
    END { if (wrk > 0 && h > 0) printf "%.3f", h / wrk }' "$out")
  mqtt=$(awk '/^mosquitto_pub -l QoS 1/ { split($0, a, ": "); split(a[length(a)], b, "/s"); pub = b[1] }
    /^harness QoS 1:/ { split($0, a, "s: "); split(a[2], b, "/s"); h = b[1] }
    END { if (pub > 0 && h > 0) printf "%.3f", h / pub }' "$out")
  rm -f "$out"
  echo "transports: HTTPS harness/wrk ${https:-?} (floor $https_floor), MQTT QoS 1 harness/mosquitto_pub ${mqtt:-?} (floor $mqtt_floor)"
  if [ -z "$https" ] || awk -v r="$https" -v f="$https_floor" 'BEGIN { exit !(r < f) }'; then
    echo "ci/bench-hot-paths.sh: the HTTPS transport got slower: ${https:-no rate} against wrk, floor $https_floor"
    status=1
  fi
  if [ -z "$mqtt" ] || awk -v r="$mqtt" -v f="$mqtt_floor" 'BEGIN { exit !(r < f) }'; then
    echo "ci/bench-hot-paths.sh: the MQTT transport got slower: ${mqtt:-no rate} against mosquitto_pub, floor $mqtt_floor"
    status=1
  fi
fi
exit $status
