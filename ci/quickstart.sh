#!/usr/bin/env bash
# The README's run command: installs dependencies, builds vitalsim, validates and generates the core
# scenario suite offline (btsnoop captures + readings.jsonl per scenario), decodes the captures with
# Wireshark's tshark as an independent check, prints the realism report, and runs the suite live.
# Only the Debian packages vitalsim needs (not the tests' PostgreSQL, Chromium or Python), and a debug
# build: cold, 5.3 min on the project's 2-core machine against 9.7 for release, and the core suite
# takes the same time with either (its waits are the scenarios' own; docs/performance.md, "A first
# run"). CONFIG=release builds the release binary, which load runs and benchmarks want.
set -euo pipefail
cd "$(dirname "$0")/.."
config="${CONFIG:-debug}"
bash ci/setup-debian.sh --run
swift build -c "$config" --product vitalsim
bin=".build/$config/vitalsim"
out=${OUT:-out/core}
rm -rf "$out"
$bin validate scenarios/core
$bin generate scenarios/core --out "$out"
echo
echo "== tshark (Wireshark 4) reads the captures (only deliberately corrupted payloads may show as malformed):"
for f in "$out"/*/captures/*.btsnoop; do
  n=$(tshark -r "$f" -Y "btatt.opcode == 0x1b || btatt.opcode == 0x1d" 2>/dev/null | wc -l)
  bad=$(tshark -r "$f" -Y "btatt.invalid_usage || _ws.malformed" 2>/dev/null | wc -l)
  printf "%-66s %7d notifications/indications, %d malformed\n" "$f" "$n" "$bad"
done
echo
$bin stats "$out"
echo
echo "== the core suite live over HTTPS and MQTT against the embedded reference SUT, judged against golden/:"
mkdir -p "$out"
$bin run scenarios/core --observe sse --observe mqtt --observe webhook --junit "$out/junit.xml" --json "$out/verdict.json" --html "$out/report.html"
echo "reports: $out/junit.xml $out/verdict.json $out/report.html"
echo "quick start: $((SECONDS / 60)) min $((SECONDS % 60)) s; vitalsim is $bin"
