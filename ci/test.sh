#!/usr/bin/env bash
# The README's test command: installs dependencies, builds everything once, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup-debian.sh
# Style: .swift-format (140 columns, one statement per line, documented public API).
swift format lint --strict -r Package.swift Sources Tests
# Every import of a package target must be a declared dependency (docs/architecture.md).
swift build --build-tests --explicit-target-dependency-import-check error
log=$(mktemp)
status=0
swift test --skip-build 2>&1 | tee "$log" || status=$?
# One plain summary line from XCTest's totals (Swift Testing's own line counts only @Test functions).
summary=$(grep -E "Executed [0-9]+ tests?, with [0-9]+ failures?" "$log" | tail -n 1 || true)
rm -f "$log"
if [ -n "$summary" ]; then
  total=$(echo "$summary" | sed -E 's/.*Executed ([0-9]+) tests?.*/\1/')
  failed=$(echo "$summary" | sed -E 's/.*with ([0-9]+) failures?.*/\1/')
  echo "tests: $((total - failed)) passed, $failed failed"
fi
exit $status
