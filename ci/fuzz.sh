#!/usr/bin/env bash
# Fuzzes every target of vitalsim-fuzz (Sources/FuzzTargets) with libFuzzer for SECONDS each:
# the GATT decoders, the scenario and golden loaders, the reference SUT's JSON/FHIR and raw GATT
# input, the trace readers. Builds with -sanitize=fuzzer,address into .build-fuzz; Fuzz/lsan.supp
# holds the one leak suppressed (in Foundation's XMLParser). Seeds: Fuzz/corpus/TARGET, plus the
# core scenarios and golden files; what a run finds new is kept in .build-fuzz/corpus/TARGET (not
# committed). A crash, a leak or a broken invariant fails the run and leaves the input in
# .build-fuzz/findings/; replay it with `swift run vitalsim-fuzz TARGET FILE`.
#
# Usage: ci/fuzz.sh [SECONDS per target, default 60] [TARGET ...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(gatt sut-json sut-gatt scenario golden trace)
swift build --product vitalsim-fuzz --scratch-path .build-fuzz \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
  -Xlinker --export-dynamic-symbol=LLVMFuzzerRunDriver 2>&1 | grep -v "Cannot export local symbol" || true
bin=.build-fuzz/debug/vitalsim-fuzz
[ -x "$bin" ] || { echo "ci/fuzz.sh: the fuzzing build failed"; exit 1; }
mkdir -p .build-fuzz/findings
status=0
for t in "${targets[@]}"; do
  work=.build-fuzz/corpus/$t
  mkdir -p "$work"
  seeds=()
  [ -d "Fuzz/corpus/$t" ] && seeds+=("Fuzz/corpus/$t")
  [ "$t" = scenario ] && seeds+=(scenarios/core)
  [ "$t" = golden ] && seeds+=(golden)
  log=.build-fuzz/fuzz-$t.log
  rc=0
  LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp:print_suppressions=0" VITALSIM_FUZZ_TARGET=$t "$bin" -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix=.build-fuzz/findings/$t- "$work" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  cov=$(grep -E '^#[0-9]+.*(DONE|INITED).*cov:' "$log" | tail -1 | sed -E 's/.*cov: ([0-9]+) ft: ([0-9]+).*/\1 edges, \2 features/')
  if [ "$rc" -ne 0 ]; then
    echo "fuzz $t: FINDING after ${runs:-?} executions (exit $rc); input in .build-fuzz/findings/"
    grep -E "ERROR|Fatal error|fuzz finding" "$log" | head -5
    status=1
  else
    echo "fuzz $t: ${runs:-0} executions in ${seconds}s, coverage ${cov:-unknown}, no findings"
  fi
done
exit $status
