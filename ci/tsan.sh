#!/usr/bin/env bash
# The unit-test targets, and the integration tests that drive libcurl and libmosquitto from several
# threads in-process, under ThreadSanitizer. A separate build folder (.build-tsan): the whole package
# is rebuilt with -sanitize=thread.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup-debian.sh
scratch=.build-tsan
swift build --build-tests --sanitize=thread --scratch-path "$scratch"
unit='VitalSimCoreTests|GATTTests|TrafficPlanningTests|OracleTests|JudgeTests|ReferenceEngineTests|SUTProfileTests|LiveRunTests|ShrinkingTests|TracesTests'
inprocess='IntegrationTests.MQTTClientLoopTests|IntegrationTests.HTTPMultiClientExecutorTests'
# halt_on_error: the first race fails the run, with both stacks in the log.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  swift test --skip-build --sanitize=thread --scratch-path "$scratch" --filter "$unit|$inprocess"
