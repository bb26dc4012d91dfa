"""An independent referee of VitalSim's CGM sensor noise: simglucose (PyPI, MIT; the Breton &
Kovatchev 2008 sensor model, noise every 15 min through a Johnson SU transform, cubic-interpolated
to the sensor's period) reads the same flat glucose, and both series are measured the same way.

Usage: cgm_simglucose.py READINGS.jsonl PLASMA. READINGS.jsonl holds the CGM readings of a patient
whose plasma glucose is flat at PLASMA mg/dL. Prints one JSON object per CGM device:
{device, cadenceMin, n, vitalsim: {…}, simglucose: {…}} where each {…} holds sd (mg/dL), sd2 (SD of
the second difference, mg/dL), step3 (share of steps faster than 3 mg/dL/min), trend1 and trend2
(share of readings whose 15-minute change is at least 1 or 2 mg/dL/min: Dexcom's "slowly" and
"rising/falling" arrows), low and high (1st and 99th percentiles) and mard (%) against PLASMA.
simglucose's readings are rounded to whole mg/dL, as a receiver shows them.
"""
import json
import sys

import numpy as np
import pandas as pd
import pkg_resources
from simglucose.sensor.noise_gen import CGMNoise


def measures(x, cadence, plasma):
    x = np.asarray(x, dtype=float)
    k = max(1, round(15 / cadence))
    trend = np.abs(x[k:] - x[:-k]) / (k * cadence)
    return {
        "sd": float(x.std()),
        "sd2": float(np.diff(x, 2).std()),
        "step3": float((np.abs(np.diff(x)) / cadence > 3).mean()),
        "trend1": float((trend >= 1).mean()),
        "trend2": float((trend >= 2).mean()),
        "low": float(np.percentile(x, 1)),
        "high": float(np.percentile(x, 99)),
        "mard": float(100 * np.mean(np.abs(x - plasma) / plasma)),
    }


def simglucose_series(cadence, n, plasma):
    params = pd.read_csv(pkg_resources.resource_filename("simglucose", "params/sensor_params.csv"))
    # Navigator samples every minute, GuardianRT every 5; any other cadence uses the closest.
    name = "Navigator" if cadence < 3 else "GuardianRT"
    p = params.loc[params.Name == name].squeeze().copy()
    p["sample_time"] = cadence
    out = []
    seed = 0
    while len(out) < n:
        noise = CGMNoise(p, seed=seed)
        out.extend(np.round(plasma + next(noise)) for _ in range(min(n - len(out), 1440 // cadence)))
        seed += 1
    return out


def main(path, plasma):
    series = {}
    for line in open(path):
        r = json.loads(line)
        if r["kind"] == "cgm":
            series.setdefault(r["device"], []).append((r["virtualMs"]["measured"], r["value"]))
    for device in sorted(series):
        points = sorted(series[device])
        cadence = round((points[1][0] - points[0][0]) / 60000)
        values = [v for _, v in points]
        print(json.dumps({
            "device": device,
            "cadenceMin": cadence,
            "n": len(values),
            "vitalsim": measures(values, cadence, plasma),
            "simglucose": measures(simglucose_series(cadence, len(values), plasma), cadence, plasma),
        }))


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]))
