"""An independent referee of the ECG watch's waveform shape: neurokit2 (PyPI, MIT) cleans each
recording, finds its R peaks, delineates its waves (discrete wavelet method) and rates its quality
(Zhao & Zhang 2018's pSQI, kSQI and basSQI rules). Per recording, the medians over its beats:

  QRS (R onset → R offset), PR (P onset → R onset), QT (R onset → T offset) and QTc by Bazett
  (QT/√RR) and Fridericia (QT/∛RR), all ms; the P wave's height in lead I (mV, P peak above the
  recording's median); and the quality class. Also the QRS by neurokit2's continuous wavelet
  method (qrsCwtMs): the discrete method picks its wavelet scale from the median rate, one octave
  coarser below 60 /min, which reads any QRS (neurokit2's own ecgsyn waveform's too) 15-20 ms wider
  there; the continuous method has no such step.

Usage: ecg_morphology.py READINGS.jsonl. Prints one JSON object per recording:
{time, classification, hr, qrsMs, qrsCwtMs, prMs, qtMs, qtcBazettMs, qtcFridericiaMs, pAmplitudeMv,
 quality}.
"""
import json
import sys
import warnings

import neurokit2 as nk
import numpy as np

warnings.filterwarnings("ignore")


def median(values):
    values = np.asarray(values, dtype=float)
    values = values[~np.isnan(values)]
    return float(np.median(values)) if len(values) else None


def main(path):
    for line in open(path):
        r = json.loads(line)
        if r["kind"] != "ecg":
            continue
        payload = r["payload"]
        fs = payload["samplingFrequency"]
        cleaned = nk.ecg_clean(np.array(payload["voltageMeasurements"], dtype=float) / 1000.0, sampling_rate=fs)
        _, info = nk.ecg_peaks(cleaned, sampling_rate=fs)
        peaks = info["ECG_R_Peaks"]
        quality = nk.ecg_quality(cleaned, rpeaks=peaks, sampling_rate=fs, method="zhao2018")
        _, waves = nk.ecg_delineate(cleaned, peaks, sampling_rate=fs, method="dwt")
        _, cwt = nk.ecg_delineate(cleaned, peaks, sampling_rate=fs, method="cwt")

        def wave(name):
            return np.array(waves[name], dtype=float)

        ms = 1000.0 / fs
        rr = float(np.median(np.diff(peaks))) / fs
        qt = median((wave("ECG_T_Offsets") - wave("ECG_R_Onsets")) * ms)
        base = float(np.median(cleaned))
        p_heights = [cleaned[int(i)] - base for i in wave("ECG_P_Peaks") if not np.isnan(i)]
        print(json.dumps({
            "time": r["deviceTime"], "classification": payload["classification"], "hr": payload["value"],
            "qrsMs": median((wave("ECG_R_Offsets") - wave("ECG_R_Onsets")) * ms),
            "qrsCwtMs": median((np.array(cwt["ECG_R_Offsets"], dtype=float) - np.array(cwt["ECG_R_Onsets"], dtype=float)) * ms),
            "prMs": median((wave("ECG_R_Onsets") - wave("ECG_P_Onsets")) * ms),
            "qtMs": qt,
            "qtcBazettMs": qt / rr ** 0.5 if qt else None,
            "qtcFridericiaMs": qt / rr ** (1 / 3) if qt else None,
            "pAmplitudeMv": median(p_heights),
            "quality": quality,
        }))


if __name__ == "__main__":
    main(sys.argv[1])
