"""An independent check of VitalSim's pulse oximetry with numpy: the autocorrelation of a
continuous oximeter's error (reading − true saturation), and a night's oximetry statistics in the
terms of Gries & Brooks (Chest 1996): median (Sat 50), 10th centile (Sat 10), lowest (Low Sat),
and the oxygen desaturation index (falls of 3 % or more below the mean of the preceding 2
minutes, per hour).

Usage: spo2_referee.py READINGS.jsonl DEVICE FROM_MS TO_MS. Uses DEVICE's SpO2 readings measured in
[FROM_MS, TO_MS) of virtual time. Prints {n, acf: [lag 0..15], errorSD, sat50, sat10, low, odi}.
"""
import json
import sys

import numpy as np


def main(path, device, start, end):
    t, value, truth = [], [], []
    for line in open(path):
        r = json.loads(line)
        if r["device"] == device and r["kind"] == "spo2" and start <= r["virtualMs"]["measured"] < end:
            t.append(r["virtualMs"]["measured"])
            value.append(r["value"])
            truth.append(r["truth"])
    value, truth = np.array(value, dtype=float), np.array(truth, dtype=float)
    e = value - truth
    e = e - e.mean()
    acf = [1.0] + [float(np.corrcoef(e[:-k], e[k:])[0, 1]) for k in range(1, 16)]
    # ODI: a fall of ≥ 3 % below the mean of the preceding 120 s, counted once per event (re-armed
    # once the reading is back within 1 % of that mean).
    events, armed = 0, True
    for i in range(120, len(value)):
        base = value[i - 120:i].mean()
        if armed and value[i] <= base - 3:
            events, armed = events + 1, False
        elif value[i] >= base - 1:
            armed = True
    hours = (t[-1] - t[0]) / 3_600_000
    print(json.dumps({
        "n": len(value), "acf": acf, "errorSD": float(e.std()),
        "sat50": float(np.percentile(value, 50)), "sat10": float(np.percentile(value, 10)),
        "low": float(value.min()), "odi": events / hours,
    }))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]))
