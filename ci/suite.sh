#!/usr/bin/env bash
# Runs a scenario suite live against the embedded reference SUT (HTTPS and MQTT) and writes the
# reports, for CI pipelines: ci/suite.sh [SUITE_DIR] [OUT_DIR] [extra vitalsim run flags…]
# Installs what it needs (ci/setup-debian.sh), builds in release mode, and exits with vitalsim
# run's status: 0 pass, 1 an expectation failed, 2 input error, 3 infrastructure failure.
set -euo pipefail
cd "$(dirname "$0")/.."
suite="${1:-scenarios/core}"
out="${2:-out/ci}"
shift $(( $# > 2 ? 2 : $# ))
bash ci/setup-debian.sh
swift build -c release --product vitalsim
mkdir -p "$out"
export CI="${CI:-true}"   # a missing golden file fails; none is ever written
status=0
# In GitHub Actions the job summary also goes to $GITHUB_STEP_SUMMARY and each finding is annotated
# on its golden or scenario file's line; GitLab reads the code quality report.
.build/release/vitalsim run "$suite" --junit "$out/junit.xml" --json "$out/verdict.json" --html "$out/report.html" \
  --ctrf "$out/ctrf.json" --summary "$out/summary.md" --code-quality "$out/codequality.json" "$@" || status=$?
echo "reports: $out/junit.xml $out/verdict.json $out/report.html $out/ctrf.json $out/summary.md $out/codequality.json"
exit $status
