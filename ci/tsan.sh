#!/usr/bin/env bash
# The concurrent code's tests under ThreadSanitizer: the modules that start tasks, threads or
# dispatch queues (docs/architecture.md, rule 5) — LiveHarness, SUTAdapter, Locking and Transports'
# send window, the reference SUT's actor store, alert hub and routes (ReferenceSUTTests), the BLE
# hosts' reader threads and work queues over an in-memory link (HCIHostTests), and libcurl and
# libmosquitto driven from several threads in-process (two integration classes).
#
# Only those modules and the test targets are compiled with -sanitize=thread (VITALSIM_TSAN_SCOPE in
# Package.swift), in the plain build's folder: the objects of the dependencies and of VitalSim's pure
# modules (no locks, tasks or threads: rule 5) are the plain build's. Races in the concurrent code
# are caught (both accesses are instrumented; locks, libdispatch and Swift's task hand-offs are seen
# by the runtime); races inside NIO or Hummingbird themselves are their projects' to catch. The
# scope also leaves out the command line, the fuzzer and the pure modules' tests; the integration
# classes start the plain `vitalsim` already built. Afterwards a plain `swift build` compiles
# VitalSim's modules again (ci/test.sh runs this stage after the tests). Arguments after the
# script's name go to `swift test` (ci/test.sh passes --xunit-output).
set -euo pipefail
cd "$(dirname "$0")/.."
# ci/test.sh ran the setup already (VITALSIM_SETUP_DONE); run alone, tsan.sh installs what it needs.
[ -n "${VITALSIM_SETUP_DONE:-}" ] || bash ci/setup-debian.sh
# The manifest is read anew (not from SwiftPM's shared cache), as it depends on the variable.
export VITALSIM_TSAN_SCOPE=1
debug_info=(-debug-info-format "${VITALSIM_DEBUG_INFO:-dwarf}")
# The plain build's traits (ci/test.sh), so that its objects are the ones reused.
traits=(--traits "${VITALSIM_TRAITS:-OTLP}")
swift build --build-tests --manifest-cache none "${debug_info[@]}" "${traits[@]}"
concurrent='LiveHarnessTests|SUTAdapterTests|LockingTests|TransportsTests|ReferenceSUTTests'
# The runner's tasks against the in-process SUT are watched through the misconfiguration, stored-data
# and doctor suites (every part of a run, a few runs); the end-to-end suites that repeat them over
# every scenario and fault run without the sanitizer's 5-15x cost (ci/test.sh).
repeated='InProcessRunTests|InProcessFaultTests|InProcessProfileTests|InProcessLifecycleTests|InProcessGoldenTests|InProcessShrinkTests'
inprocess='BluetoothHostTests.HCIHostTests|IntegrationTests.MQTTClientLoopTests|IntegrationTests.HTTPMultiClientExecutorTests'
# The runner on a test clock checks times to within a 100 ms step of virtual time: under the
# sanitizer's slowdown the woken tasks miss their step, so those suites run in ci/test.sh only (the
# runner's tasks are watched here through the suites above).
virtual='VirtualClockRunTests|VirtualClockMQTTTests'
# halt_on_error: the first race fails the run, with both stacks in the log.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  swift test --skip-build --manifest-cache none "${debug_info[@]}" "${traits[@]}" --parallel --num-workers 2 \
  --filter "$concurrent|$inprocess" --skip "$repeated|$virtual" "$@"
