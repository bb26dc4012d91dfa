"""An independent referee of VitalSim's heart-rate variability: hrv-analysis (PyPI, GPL-3; Task
Force 1996 time and frequency domain measures), neurokit2 (sample entropy) and scipy (the
long-range spectrum) read the RR intervals a heart-rate strap reported.

Usage: hrv_referee.py READINGS.jsonl DEVICE [AF_FROM_MS AF_TO_MS]. DEVICE's RR intervals (1/1024 s,
as GATT carries them) are cut into 5-minute windows. Prints one JSON object:
{beats, hours, sdnn24, sdann, slope, windows: [{startMs, af, sdnn, rmssd, lfHf, lfHfWelch, vlfShare, sampEn,
cosEn}]}
where slope is the log–log slope of the RR spectrum between 0.0001 and 0.01 Hz (null under 6 h),
lfHf and vlfShare (VLF/(VLF+LF+HF)) are by the Lomb–Scargle periodogram, lfHfWelch by
hrv-analysis's default Welch method (RR intervals are unevenly spaced in
time; Welch's 64-s segments cannot resolve 5-minute VLF), sampEn is neurokit2's sample entropy
(m 2, r 0.2 SD), cosEn Lake & Moorman's coefficient of sample entropy (AJP Heart 2011;300:H319:
neurokit2's sample entropy with m 1 and r 30 ms, + ln(2r) − ln(mean RR), RR in seconds; AF above
−1.4), and af marks windows inside [AF_FROM_MS, AF_TO_MS) of virtual time. Over 6 hours and more
windows is empty: a day is read by its 24-hour measures, for which each window's mean is taken.

Over 6 hours and more it also prints bouts: the patient's bursts of activity, read from the
heart-rate truth of DEVICE's notifications (1 s) as runs of at least 5 s more than 6 /min above
the running 20th percentile of the 20 minutes around them (scipy.ndimage): {count, medianS, p10S,
p90S, maxShareIn10s (the largest share of bouts whose durations fall within one 10-s window),
medianRampS (10 % to 90 % of the bout's peak excess)}; null under 6 hours.
"""
import json
import sys
import warnings

warnings.filterwarnings("ignore")

import neurokit2 as nk  # noqa: E402
import numpy as np  # noqa: E402
from hrvanalysis import get_frequency_domain_features, get_time_domain_features  # noqa: E402
from scipy import ndimage, signal  # noqa: E402


def beats(path, device):
    """(virtual ms at the beat, RR ms) for every interval the device reported, in order."""
    out = []
    for line in open(path):
        r = json.loads(line)
        if r["device"] != device or r["kind"] != "heart-rate" or not r.get("rrIntervals"):
            continue
        t = r["virtualMs"]["measured"]
        rrs = [v * 1000 / 1024 for v in r["rrIntervals"]]
        # The notification's intervals end at (about) its time, the last one latest.
        ends = t - np.cumsum([0] + rrs[::-1][:-1])[::-1]
        out.extend(zip(ends.tolist(), rrs))
    return out


def bouts(path, device):
    """The activity bouts in the heart-rate truth of the device's notifications (see above)."""
    t, truth = [], []
    for line in open(path):
        r = json.loads(line)
        if r["device"] == device and r["kind"] == "heart-rate" and r.get("truth") is not None:
            t.append(r["virtualMs"]["measured"] / 1000.0)
            truth.append(r["truth"])
    t, x = np.array(t), np.array(truth)
    excess = x - ndimage.percentile_filter(x, 20, size=1201, mode="nearest")
    labels, n = ndimage.label(excess > 6)
    durations, ramps = [], []
    for k in range(1, n + 1):
        idx = np.where(labels == k)[0]
        duration = t[idx[-1]] - t[idx[0]] + 1
        if duration < 5:
            continue
        run = excess[idx]
        peak = run.max()
        ramps.append(t[idx[np.argmax(run >= 0.9 * peak)]] - t[idx[np.argmax(run >= 0.1 * peak)]])
        durations.append(duration)
    if not durations:
        return None
    d = np.array(durations)
    share = max(float(np.mean((d >= a) & (d < a + 10))) for a in np.arange(0, d.max() + 5, 5))
    return {"count": len(d), "medianS": float(np.median(d)), "p10S": float(np.percentile(d, 10)),
            "p90S": float(np.percentile(d, 90)), "maxShareIn10s": share, "medianRampS": float(np.median(ramps))}


def main(path, device, af_from=None, af_to=None):
    rr = beats(path, device)
    times = np.array([t for t, _ in rr])
    nn = np.array([v for _, v in rr])
    hours = (times[-1] - times[0]) / 3_600_000
    windows, means = [], []
    start = times[0]
    while start + 300_000 <= times[-1]:
        sel = nn[(times >= start) & (times < start + 300_000)]
        if len(sel) > 100:
            means.append(sel.mean())
        # A day's recording is judged by its 24-hour measures: each window's mean only, for SDANN.
        if len(sel) > 100 and hours < 6:
            td = get_time_domain_features(list(sel))
            fd = get_frequency_domain_features(list(sel), method="lomb")
            welch = get_frequency_domain_features(list(sel))
            total = fd["vlf"] + fd["lf"] + fd["hf"]
            af = af_from is not None and af_from <= start and start + 300_000 <= af_to
            windows.append({
                "startMs": int(start), "af": bool(af), "sdnn": td["sdnn"], "rmssd": td["rmssd"],
                "lfHf": fd["lf_hf_ratio"], "lfHfWelch": welch["lf_hf_ratio"], "vlfShare": fd["vlf"] / total,
                "sampEn": float(nk.entropy_sample(sel, dimension=2, tolerance=0.2 * np.std(sel))[0]),
                "cosEn": float(nk.entropy_sample(sel / 1000, dimension=1, tolerance=0.03)[0] + np.log(0.06) - np.log(sel.mean() / 1000)),
            })
        start += 300_000
    slope = None
    if hours >= 6:
        # RR as a function of time, resampled at 0.5 Hz; Welch with 4-hour segments.
        grid = np.arange(times[0], times[-1], 2000.0)
        series = np.interp(grid, times, nn)
        f, p = signal.welch(series - series.mean(), fs=0.5, nperseg=min(len(series), 7200))
        band = (f >= 1e-4) & (f <= 1e-2)
        slope = float(np.polyfit(np.log10(f[band]), np.log10(p[band]), 1)[0])
    print(json.dumps({
        "beats": len(nn), "hours": hours, "sdnn24": float(np.std(nn)), "sdann": float(np.std(means)),
        "slope": slope, "windows": windows, "bouts": bouts(path, device) if hours >= 6 else None,
    }))


if __name__ == "__main__":
    args = sys.argv[1:]
    main(args[0], args[1], *(float(a) for a in args[2:4]))
