#!/usr/bin/env bash
# Fuzzes every target of vitalsim-fuzz (Sources/FuzzTargets) with libFuzzer for SECONDS each:
# the GATT decoders, the scenario and golden loaders, the reference SUT's JSON/FHIR and raw GATT
# input, the trace readers. Builds with -sanitize=fuzzer,address into .build-fuzz; Fuzz/lsan.supp
# holds the one leak suppressed (in Foundation's XMLParser). Seeds: Fuzz/corpus/TARGET, plus the
# core scenarios and golden files; what a run finds new is kept in .build-fuzz/corpus/TARGET (not
# committed). A crash, a leak or a broken invariant fails the run and leaves the input in
# .build-fuzz/findings/; replay it with `swift run vitalsim-fuzz TARGET FILE`.
#
# Two targets run at a time, one per core.
#
# Usage: ci/fuzz.sh [SECONDS per target, default 60] [TARGET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(gatt sut-json sut-gatt scenario golden trace)
swift build --product vitalsim-fuzz --scratch-path .build-fuzz -debug-info-format "${VITALSIM_DEBUG_INFO:-dwarf}" \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
  -Xlinker --export-dynamic-symbol=LLVMFuzzerRunDriver 2>&1 | grep -v "Cannot export local symbol" || true
bin=.build-fuzz/debug/vitalsim-fuzz
[ -x "$bin" ] || { echo "ci/fuzz.sh: the fuzzing build failed"; exit 1; }
mkdir -p .build-fuzz/findings

# One target's pass; prints its result line and returns 1 on a finding.
fuzz_one() {
  local t=$1 work=.build-fuzz/corpus/$1 log=.build-fuzz/fuzz-$1.log rc=0 runs cov
  local seeds=()
  mkdir -p "$work"
  [ -d "Fuzz/corpus/$t" ] && seeds+=("Fuzz/corpus/$t")
  [ "$t" = scenario ] && seeds+=(scenarios/core)
  [ "$t" = golden ] && seeds+=(golden)
  # -timeout is wall-clock time, and in CI this pass runs at idle priority beside ThreadSanitizer's
  # tests: starved, a mutation of the 51-KB ward golden file once ran past 10 s (0.25 s alone).
  # A minute still catches a hang.
  LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0" VITALSIM_FUZZ_TARGET=$t "$bin" \
    -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -timeout=60 \
    -artifact_prefix=.build-fuzz/findings/$t- "$work" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -E '^#[0-9]+.*(DONE|INITED).*cov:' "$log" | tail -1 | sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+).*/\1 edges, \2 features/')
  if [ "$rc" -ne 0 ]; then
    echo "fuzz $t: FINDING after ${runs:-?} executions (exit $rc); input in .build-fuzz/findings/"
    grep -E "ERROR|Fatal error|fuzz finding" "$log" | head -5
    return 1
  fi
  echo "fuzz $t: ${runs:-0} executions in ${seconds}s, coverage ${cov:-unknown}, no findings"
}

# Two targets at a time (one per core); each result printed once its pair has ended, in order.
status=0
for ((i = 0; i < ${#targets[@]}; i += 2)); do
  pair=("${targets[@]:i:2}")
  pids=()
  for t in "${pair[@]}"; do
    fuzz_one "$t" >".build-fuzz/result-$t.txt" 2>&1 &
    pids+=($!)
  done
  for j in "${!pids[@]}"; do
    wait "${pids[$j]}" || status=1
    cat ".build-fuzz/result-${pair[$j]}.txt"
  done
done
exit $status
