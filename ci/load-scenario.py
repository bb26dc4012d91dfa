"""Writes a load scenario: a ward of remote-monitoring patients, four devices each, and a clinical
event for every 100th patient. The same arguments write the same bytes (scenarios/load/ is written
by it, and IntegrationTests check the committed file against it).

Usage: ci/load-scenario.py PATIENTS DURATION OUT.yaml [NAME]

Patients, by their number i (from 0):
  i % 10 < 7   adult: phone bridge (VitalEdge heart rate every 5 min), BP cuff (07:00, 19:00),
               weight scale (07:00), thermometer (every 4 h); every 100th (i % 100 == 0) has a
               tachycardia of 150/min for 30 min
  i % 10 in 7, 8  diabetic-cgm: CGM (5 min), BP cuff, weight scale, phone bridge; every 100th
               (i % 100 == 7) is type 1 and takes 12 U of insulin by mistake (hypoglycaemia)
  i % 10 == 9  copd: pulse oximeter (spot checks 08:00, 14:00, 20:00), thermometer (hourly),
               respiration monitor (5 min), BP cuff; every 100th (i % 100 == 9) runs a fever of 39.4 °C
The ward starts at 06:30 UTC, so the morning's BP bursts and weights fall inside a short run."""
import sys


def patient(i):
    p = f"w{i:05d}"
    kind = i % 10
    if kind < 7:
        lines = [f'  - id: "{p}"', "    profile: adult", "    devices:",
                 f"      - {{id: phone-{p}, type: phone-bridge, cadence: 5m}}",
                 f"      - {{id: cuff-{p}, type: bp-cuff}}",
                 f"      - {{id: scale-{p}, type: weight-scale}}",
                 f"      - {{id: therm-{p}, type: thermometer}}"]
    elif kind < 9:
        type1 = i % 100 == 7
        lines = [f'  - id: "{p}"', "    profile: diabetic-cgm",
                 "    baseline: {glucose: 140, diabetes: " + ("type1}" if type1 else "type2}"), "    devices:",
                 f"      - {{id: cgm-{p}, type: cgm, cadence: 5m}}",
                 f"      - {{id: cuff-{p}, type: bp-cuff}}",
                 f"      - {{id: scale-{p}, type: weight-scale}}",
                 f"      - {{id: phone-{p}, type: phone-bridge, cadence: 5m}}"]
    else:
        lines = [f'  - id: "{p}"', "    profile: copd", "    devices:",
                 f"      - {{id: oxi-{p}, type: pulse-oximeter}}",
                 f"      - {{id: therm-{p}, type: thermometer, cadence: 1h}}",
                 f"      - {{id: resp-{p}, type: respiration-monitor}}",
                 f"      - {{id: cuff-{p}, type: bp-cuff}}"]
    return lines


def event(i):
    p = f"w{i:05d}"
    if i % 100 == 0:
        return [f'  - {{at: 20m, patient: "{p}", event: tachycardia, duration: 30m, target: 150, onset: 2m, offset: 3m}}']
    if i % 100 == 7:
        return [f'  - {{at: 15m, patient: "{p}", event: hypoglycemia, cause: insulin-overdose, insulin: 12}}']
    if i % 100 == 9:
        return [f'  - {{at: 10m, patient: "{p}", event: fever, duration: 3h, target: 39.4}}']
    return []


def main():
    patients, duration, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    name = sys.argv[4] if len(sys.argv) > 4 else f"ward-{patients}-patients"
    lines = [f"# Written by ci/load-scenario.py {patients} {duration} (do not edit: run it again).",
             f"name: {name}",
             "description: >",
             f"  A load scenario: {patients} remote-monitoring patients with four devices each ({4 * patients} devices),",
             "  adults with heart rate, blood pressure, weight and temperature, diabetics with CGM, COPD",
             "  patients with oximetry and respiration; every 100th patient has a clinical event",
             "  (tachycardia, hypoglycaemia or fever). Written by ci/load-scenario.py.",
             "seed: 4100",
             f"duration: {duration}",
             "start: 2024-11-07T06:30:00Z",
             "patients:"]
    for i in range(patients):
        lines += patient(i)
    events = [e for i in range(patients) for e in event(i)]
    lines += ["timeline:"] + events if events else ["timeline: []"]
    open(out, "w").write("\n".join(lines) + "\n")


main()
