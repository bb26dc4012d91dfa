"""Writes a scenario with PATIENTS patients × 4 devices (chest strap 1 s, CGM 5 min, spot-check
oximeter, thermometer 4 h) for DURATION: the harness's memory benchmark population.
Usage: population.py PATIENTS DURATION OUT.yaml"""
import sys

patients, duration, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
lines = [f"name: population-{patients * 4}-devices", "description: Harness memory benchmark population.",
         "seed: 4242", f"duration: {duration}", "start: 2024-11-07T08:00:00Z", "patients:"]
for i in range(patients):
    p = f"b{i:05d}"
    lines += [f'  - id: "{p}"', "    profile: diabetic-cgm", "    devices:",
              f"      - {{id: hrm-{p}, type: heart-rate-strap}}", f"      - {{id: cgm-{p}, type: cgm}}",
              f"      - {{id: oxi-{p}, type: pulse-oximeter}}", f"      - {{id: therm-{p}, type: thermometer}}"]
lines.append("timeline: []")
open(out, "w").write("\n".join(lines) + "\n")
