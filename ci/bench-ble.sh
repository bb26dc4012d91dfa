#!/usr/bin/env bash
# BLE notification latency: VitalSim peripheral → bumble virtual controller → bumble central.
# Emit time = when VitalSim's host wrote the ATT notification (its live btsnoop capture);
# receipt time = when the bumble central's callback ran. Both are this machine's wall clock.
set -euo pipefail
cd "$(dirname "$0")/.."
bash ci/setup-debian.sh
scratch="${SCRATCH:-.build}"   # the build folder
swift build -c release --product vitalsim --scratch-path "$scratch"
py=.venv-bumble/bin/python
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
read -r p1 p2 < <($py -c "import socket
s=[socket.socket() for _ in range(2)]
[x.bind(('127.0.0.1',0)) for x in s]
print(*[x.getsockname()[1] for x in s])")
cat > "$work/hr.yaml" <<'YAML'
name: ble-latency
seed: 4
duration: 12m
patients:
  - id: "p1"
    profile: adult
    devices:
      - {id: hrm, type: heart-rate-strap}
YAML
VITALSIM_BUMBLE_PYTHON="$py" "$scratch/release/vitalsim" controllers "$p1" "$p2" > "$work/controllers.log" 2>&1 &
sleep 3
SPEED=${SPEED:-60}
"$scratch/release/vitalsim" peripheral "$work/hr.yaml" --hci "tcp:127.0.0.1:$p1" --speed "$SPEED" --capture "$work" --linger 1 > "$work/peripheral.log" 2>&1 &
sleep 2
addr=$(awk '/advertising/ {print $3}' "$work/peripheral.log")
$py Tests/bumble/central.py "tcp-client:127.0.0.1:$p2" "$addr" 700 2A37 > "$work/central.json"
wait %2 || true
$py - "$work/p1-hrm.live.btsnoop" "$work/central.json" "$SPEED" <<'PY'
import json, struct, sys
capture, central, speed = sys.argv[1], sys.argv[2], sys.argv[3]
data = open(capture, "rb").read()
sent, o = [], 16
while o < len(data):
    _, inc, flags, _, ts = struct.unpack(">IIIIq", data[o:o + 24])
    pkt = data[o + 24:o + 24 + inc]
    # host→controller ACL (flags bit0 = 0), L2CAP CID 4, ATT Handle Value Notification.
    if flags & 1 == 0 and pkt[0] == 2 and len(pkt) > 12 and pkt[7:9] == b"\x04\x00" and pkt[9] == 0x1B:
        sent.append(((ts - 0x00DCDDB30F2F8000) / 1e6, pkt[12:].hex()))
    o += 24 + inc
got = [r for r in json.load(open(central))["received"] if r["uuid"] == "0x2A37"]
lat = sorted((r["t"] - s[0]) * 1000 for s, r in zip(sent, got) if s[1] == r["hex"])
assert len(lat) > 100, f"only {len(lat)} matched notifications"
q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))]
print(f"BLE notification latency, {len(lat)} heart-rate notifications at --speed {speed} (~{float(speed):.0f}/s):")
print(f"  p50 {q(0.50):.2f} ms  p90 {q(0.90):.2f} ms  p99 {q(0.99):.2f} ms  max {lat[-1]:.2f} ms")
PY
