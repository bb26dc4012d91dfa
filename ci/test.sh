#!/usr/bin/env bash
# The README's test command: installs dependencies, builds everything once, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
# Run as CI does (CI set: `vitalsim record` refuses, a missing golden file fails), so a local run
# and the CI run agree; tests that record golden files clear it for that command themselves.
export CI="${CI:-true}"
bash ci/setup-debian.sh
# Style: .swift-format (140 columns, one statement per line, documented public API).
swift format lint --strict -r Package.swift Sources Tests
# Functions fit a screen: no function, initializer or computed property over 60 lines.
python3 ci/function-length.py --limit 60 Sources Tests
# No target over 2,500 lines (docs/architecture.md, "Sizes").
python3 ci/target-sizes.py > /dev/null
# Every import of a package target must be a declared dependency (docs/architecture.md).
swift build --build-tests --explicit-target-dependency-import-check error
log=$(mktemp)
status=0
swift test --skip-build 2>&1 | tee "$log" || status=$?
# The unit tests and the in-process transport tests again under ThreadSanitizer (its own build
# folder, .build-tsan; a race fails the run). VITALSIM_SKIP_TSAN=1 leaves it out.
if [ -z "${VITALSIM_SKIP_TSAN:-}" ]; then
  tsan=0
  bash ci/tsan.sh 2>&1 | tee -a "$log" || tsan=$?
  if [ "$tsan" -ne 0 ]; then
    echo "ci/tsan.sh failed (exit $tsan)"
    status=1
  fi
fi
# libFuzzer over the decoders, the loaders and the reference SUT's input, 20 s per target
# (ci/fuzz.sh; docs/reliability.md). A finding fails the run. VITALSIM_SKIP_FUZZ=1 leaves it out.
if [ -z "${VITALSIM_SKIP_FUZZ:-}" ]; then
  fuzz=0
  bash ci/fuzz.sh 20 2>&1 | tee -a "$log" || fuzz=$?
  if [ "$fuzz" -ne 0 ]; then
    echo "ci/fuzz.sh failed (exit $fuzz)"
    status=1
  fi
fi
# One plain summary line: the XCTest totals of each run (the line after "Test Suite 'All tests'"
# or "'Selected tests'"; Swift Testing's own line counts only @Test functions).
total=0
failed=0
while read -r n f; do
  total=$((total + n))
  failed=$((failed + f))
done < <(awk "/Test Suite '(All tests|Selected tests)' (passed|failed)/ { grab = 1; next }
  grab && /Executed [0-9]+ tests?, with [0-9]+ failures?/ { grab = 0; print }" "$log" |
  sed -E 's/.*Executed ([0-9]+) tests?, with ([0-9]+) failures?.*/\1 \2/')
rm -f "$log"
# A run that crashed or a sanitizer report counts as a failure even without a failed test case.
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
echo "tests: $((total - failed)) passed, $failed failed"
exit $status
