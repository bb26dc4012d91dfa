"""An independent referee, in numpy and scipy, of the signal features VitalSim's own Swift tests
used to measure on its own model: it reads only what `vitalsim generate` wrote (readings.jsonl).

Usage: signals_referee.py MEASURE READINGS.jsonl [ARGS]. Each measure prints one JSON object.

  bp DEVICE          Ambulatory blood pressure from a cuff measuring every 15 minutes. One reading
                     per session (a home cuff's second reading, a minute later, is left out), every
                     one from 07:00 to 23:00 and every other one at night, as an ambulatory monitor
                     samples (15/30 min). Per day: the average real variability (mean absolute
                     difference of successive readings; Mena et al. 2005) and SD of systolic and
                     diastolic; the night/day ratio (01–05 h over 10–20 h); the share of reported
                     MAPs a whole mmHg away from DBP + PP/3; the correlation of the systolic and
                     diastolic changes between the two readings of a home session a minute apart
                     (the cuff's errors: the pressure itself barely moves in a minute).
  glucose DEVICE     Plasma glucose (the `truth` of a 1-minute CGM's readings), per whole day: the
                     correlation of each day with the next; the nadir, how many minutes sit within
                     0.5 mg/dL of it and exactly at it, and the rise 3 hours after it.
  feeds DEVICE       A feeding log: intervals between feeds (mean and SD, minutes) and the
                     correlation of each interval with the volume of the feed that ends it.
  growth DEVICE      A scale's daily weights (`truth`, kg): mean and SD of the daily gain in grams.
  breathing STRAP RESP
                     Per 5-minute window of STRAP's RR intervals: the frequency of the highest
                     Lomb-Scargle peak in the HF band (0.15-0.40 Hz, Task Force 1996), as breaths
                     per minute, beside the mean of RESP's respiration-rate readings in the same
                     window. Prints the windows, their correlation and the median difference.
  rate STRAP FROM_MS TO_MS
                     Per 5-minute window of STRAP: the heart rate its RR intervals give (60,000 /
                     mean RR ms) beside the mean `truth` of its heart-rate readings, the windows
                     inside [FROM_MS, TO_MS) of virtual time marked `af`.
"""
import json
import sys

import numpy as np
from scipy import signal

MINUTE, HOUR, DAY = 60_000, 3_600_000, 86_400_000


def readings(path, device, kind=None):
    out = []
    for line in open(path):
        r = json.loads(line)
        if r["device"] == device and r["kind"] != "battery" and (kind is None or r["kind"] == kind):
            out.append(r)
    out.sort(key=lambda r: r["virtualMs"]["measured"])
    return out


def at(r):
    return r["virtualMs"]["measured"]


def corr(a, b):
    return float(np.corrcoef(np.asarray(a, float), np.asarray(b, float))[0, 1])


def bp(path, device):
    rows = readings(path, device, "blood-pressure")
    sessions, pairs = [], []
    for r in rows:
        if sessions and at(r) - at(sessions[-1][-1]) < 5 * MINUTE:
            sessions[-1].append(r)
        else:
            sessions.append([r])
    for s in sessions:
        if len(s) == 2:
            pairs.append((s[1]["systolic"] - s[0]["systolic"], s[1]["diastolic"] - s[0]["diastolic"]))
    ambulatory = []
    for s in sessions:
        first = s[0]
        minute = (at(first) // MINUTE) % 1440
        hour = minute // 60
        if 7 <= hour < 23 or (minute // 15) % 2 == 0:
            ambulatory.append(first)
    days = []
    for d in sorted({at(r) // DAY for r in ambulatory}):
        day = [r for r in ambulatory if at(r) // DAY == d]
        if len(day) < 60:
            continue
        sys_ = np.array([r["systolic"] for r in day], float)
        dia = np.array([r["diastolic"] for r in day], float)
        days.append({
            "n": len(day),
            "arvSystolic": float(np.abs(np.diff(sys_)).mean()), "arvDiastolic": float(np.abs(np.diff(dia)).mean()),
            "sdSystolic": float(sys_.std(ddof=1)), "sdDiastolic": float(dia.std(ddof=1)),
        })
    hours = np.array([(at(r) // HOUR) % 24 for r in ambulatory])
    sys_all = np.array([r["systolic"] for r in ambulatory], float)
    dia_all = np.array([r["diastolic"] for r in ambulatory], float)
    night, day = (hours >= 1) & (hours < 5), (hours >= 10) & (hours < 20)
    off = [abs(r["meanArterialPressure"] - (r["diastolic"] + (r["systolic"] - r["diastolic"]) / 3)) >= 1 for r in rows]
    return {
        "readings": len(rows), "days": days,
        "nightDaySystolic": float(sys_all[night].mean() / sys_all[day].mean()),
        "nightDayDiastolic": float(dia_all[night].mean() / dia_all[day].mean()),
        "mapOffFormula": float(np.mean(off)),
        "pairs": len(pairs), "pairChangeCorrelation": corr([p[0] for p in pairs], [p[1] for p in pairs]),
    }


def glucose(path, device):
    rows = readings(path, device, "cgm")
    by_minute = {at(r) // MINUTE: r["truth"] for r in rows}
    minutes = sorted(by_minute)
    g = np.array([by_minute[m] for m in minutes], float)
    # Whole days of the scenario (minute 0 = its start), aligned minute by minute.
    days = []
    for d in range(minutes[-1] // 1440 + 1):
        day = [by_minute.get(d * 1440 + m) for m in range(1440)]
        if sum(v is not None for v in day) >= 1430:
            days.append(day)
    common = [m for m in range(1440) if all(day[m] is not None for day in days)]
    days = [np.array([day[m] for m in common], float) for day in days]
    nadir_at = int(g.argmin())
    nadir = float(g[nadir_at])
    return {
        "minutes": len(g),
        "dayToDay": [corr(days[k], days[k + 1]) for k in range(len(days) - 1)],
        "nadir": nadir,
        "nearNadirMinutes": int(np.sum(np.abs(g - nadir) < 0.5)),
        "atNadirMinutes": int(np.sum(g == nadir)),
        "riseAfter3h": float(g[min(nadir_at + 180, len(g) - 1)] - nadir),
    }


def feeds(path, device):
    rows = readings(path, device, "feeding")
    t = np.array([at(r) for r in rows], float) / MINUTE
    gaps = np.diff(t)
    volumes = np.array([r["value"] for r in rows[1:]], float)
    return {
        "feeds": len(rows), "minGap": float(gaps.min()), "meanGap": float(gaps.mean()),
        "sdGap": float(gaps.std(ddof=1)), "gapVolumeCorrelation": corr(gaps, volumes),
    }


def growth(path, device):
    rows = readings(path, device, "weight")
    daily = {at(r) // DAY: r["truth"] for r in rows}
    days = sorted(daily)
    gains = np.array([(daily[b] - daily[a]) * 1000 for a, b in zip(days, days[1:]) if b == a + 1])
    return {"days": len(days), "meanGain": float(gains.mean()), "sdGain": float(gains.std(ddof=1)),
            "gains": gains.round(1).tolist()}


def strap_windows(path, strap, other):
    """5-minute windows of STRAP's RR intervals (the HRV referee's reading of them) beside `other`,
    a list of (virtual ms, value) readings: (start, RR times, RR ms, the window's other values) for
    each window with over 100 intervals and at least one other reading."""
    sys.path.insert(0, __file__.rsplit("/", 1)[0])
    from hrv_referee import beats  # noqa: E402

    rr = beats(path, strap)
    t = np.array([a for a, _ in rr])
    nn = np.array([b for _, b in rr])
    ot = np.array([a for a, _ in other], float)
    ov = np.array([b for _, b in other], float)
    start = t[0]
    while start + 300_000 <= t[-1]:
        sel = (t >= start) & (t < start + 300_000)
        inside = (ot >= start) & (ot < start + 300_000)
        if sel.sum() > 100 and inside.any():
            yield start, t[sel], nn[sel], ov[inside]
        start += 300_000


def breathing(path, strap, resp):
    monitor = [(at(r), r["value"]) for r in readings(path, resp, "respiration-rate")]
    freqs = np.linspace(0.15, 0.40, 251)
    windows = []
    for start, t, nn, rates in strap_windows(path, strap, monitor):
        power = signal.lombscargle((t - start) / 1000, nn - nn.mean(), 2 * np.pi * freqs)
        windows.append({"startMs": int(start), "hfPeak": float(freqs[power.argmax()] * 60), "monitor": float(rates.mean())})
    peaks = [w["hfPeak"] for w in windows]
    monitors = [w["monitor"] for w in windows]
    return {
        "windows": len(windows), "correlation": corr(peaks, monitors),
        "medianDifference": float(np.median(np.abs(np.array(peaks) - np.array(monitors)))),
        "medianPeak": float(np.median(peaks)),
        "peakIQR": float(np.percentile(peaks, 75) - np.percentile(peaks, 25)),
    }


def rate(path, strap, af_from, af_to):
    truth = [(at(r), r["truth"]) for r in readings(path, strap, "heart-rate")]
    windows = []
    for start, _, nn, truths in strap_windows(path, strap, truth):
        af = float(af_from) <= start and start + 300_000 <= float(af_to)
        windows.append({"startMs": int(start), "af": bool(af), "rrRate": float(60_000 / nn.mean()), "truth": float(truths.mean())})
    return {"windows": windows}


MEASURES = {"bp": bp, "glucose": glucose, "feeds": feeds, "growth": growth, "breathing": breathing, "rate": rate}

if __name__ == "__main__":
    measure, path, *rest = sys.argv[1:]
    print(json.dumps(MEASURES[measure](path, *rest)))
