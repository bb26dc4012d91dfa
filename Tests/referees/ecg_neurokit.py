"""An independent referee of VitalSim's ECG recordings: neurokit2 (PyPI, MIT) finds the R peaks in
each recording's waveform, and they are compared with the beats the scenario made (the recording's
`rPeaks`) and with the RR intervals the same patient's heart-rate strap reported over the same time.

Usage: ecg_neurokit.py READINGS.jsonl. Prints one JSON object per recording:
{time, classification, truthBeats, found, matched, falsePeaks, medianErrorMs, hr, hrNeurokit,
 rrCompared, rrWithin10ms, strapRRMatched}.
"""
import json
import sys
from datetime import datetime

import neurokit2 as nk
import numpy as np


def unix_ms(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp() * 1000


def main(path):
    recordings, strap = [], {}
    for line in open(path):
        r = json.loads(line)
        if r["kind"] == "ecg":
            recordings.append(r)
        elif r["kind"] == "heart-rate" and r.get("rrIntervals"):
            # The intervals (1/1024 s, as GATT carries them) of the beats completed up to this
            # notification, oldest first.
            strap.setdefault(r["patient"], []).append((unix_ms(r["deviceTime"]), [v * 1000 / 1024 for v in r["rrIntervals"]]))
    strap_rr = {p: [rr for _, rrs in sorted(s, key=lambda n: n[0]) for rr in rrs] for p, s in strap.items()}
    for r in recordings:
        payload = r["payload"]
        fs = payload["samplingFrequency"]
        volts = np.array(payload["voltageMeasurements"], dtype=float) / 1000.0
        cleaned = nk.ecg_clean(volts, sampling_rate=fs)
        _, info = nk.ecg_peaks(cleaned, sampling_rate=fs)
        found = np.array(info["ECG_R_Peaks"], dtype=float) / fs * 1000
        truth = np.array(r["rPeaks"], dtype=float)
        errors = [float(np.min(np.abs(found - t))) for t in truth] if len(found) else [1e9] * len(truth)
        matched = sum(1 for e in errors if e <= 50)
        false_peaks = sum(1 for f in found if np.min(np.abs(truth - f)) > 50)
        # neurokit2's RR intervals against the scenario's, beat for beat where both found the pair.
        rr_pairs = []
        for a, b in zip(truth[:-1], truth[1:]):
            i, j = np.argmin(np.abs(found - a)), np.argmin(np.abs(found - b))
            if abs(found[i] - a) <= 50 and abs(found[j] - b) <= 50 and j == i + 1:
                rr_pairs.append(abs((found[j] - found[i]) - (b - a)))
        # The scenario's RR intervals of this recording appear, in order, in the strap's stream.
        ecg_rr = list(np.diff(truth))
        own = strap_rr.get(r["patient"], [])
        strap_matched = contains_run(own, ecg_rr) if own and ecg_rr else None
        print(json.dumps({
            "time": r["deviceTime"], "classification": payload["classification"], "truthBeats": len(truth),
            "found": len(found), "matched": matched, "falsePeaks": false_peaks,
            "medianErrorMs": float(np.median(errors)) if errors else None,
            "hr": payload["value"], "hrNeurokit": float(60000 / np.mean(np.diff(found))) if len(found) > 1 else 0.0,
            "rrCompared": len(rr_pairs), "rrWithin10ms": sum(1 for d in rr_pairs if d <= 10),
            "strapRRMatched": strap_matched,
        }))


def contains_run(stream, run):
    """Whether `run` (ms) occurs as consecutive items of `stream` (ms, quantised to 1/1024 s), each within 1.1 ms."""
    first = run[0]
    for start in range(len(stream) - len(run) + 1):
        if abs(stream[start] - first) > 1.1:
            continue
        if all(abs(stream[start + k] - run[k]) <= 1.1 for k in range(len(run))):
            return True
    return False


if __name__ == "__main__":
    main(sys.argv[1])
