#!/usr/bin/env bash
# The README's test command: installs dependencies, builds everything once, runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup-debian.sh
swift build --build-tests
swift test --skip-build
