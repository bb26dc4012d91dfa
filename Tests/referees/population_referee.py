"""An independent referee, in numpy, of how VitalSim's patients differ from one another and how
their days differ: it reads only what `vitalsim generate` wrote (readings.jsonl).

Usage: population_referee.py MEASURE READINGS.jsonl. Each measure prints one JSON object.

  between   Per patient, the mean of each signal's `truth` over whole days: heart rate (a phone
            bridge's 5-minute samples), systolic pressure (a cuff's), weight (a scale's),
            temperature (a thermometer's), daily steps (the phone's daily summaries). Prints the
            between-patient mean and SD of each, and the share of the heart-rate samples two
            patients (each with the next in the file) have exactly the same truth at the same time.
  days      Per patient, each whole day's 5-minute heart-rate truth against the next day's at the
            same clock time: the correlation (median and largest over patients and day pairs), the
            share of samples exactly equal, and how far the time of the night's lowest hourly mean
            moves from night to night (median absolute change, minutes); the SD of the change in
            true weight between successive weighings; the daily summaries' calories against
            their steps (correlation, and the coefficient of variation of calories per step).
  glucose   Per patient, what the CGM reported (the `value` of its readings, as the published
            CGM cohorts measured it) over the whole run: mean (mg/dL), coefficient of variation
            (%), and the % of readings above 140, above 180, above 250, in 70–180, below 70 and
            below 54; and the hour of each day's first steep rise (a meal: +20 mg/dL in 30 min
            of the truth, from 04:00) for its SD across days. Patients are grouped by the id's
            part before its first "-" ("type1-3" is in "type1"); prints each group's median of every
            figure, their ranges, and the smallest within-patient SD of the truth.
  devices   How people use devices by hand (times are the readings' `measuredAt`, UTC, the
            scenario's clock): for cuffs (a session is a run of readings under 5 minutes apart)
            and scales, sessions per device per day (the mean over devices, over the whole days
            the file spans), the SD over days of the morning session's
            time of day (minutes, median over devices), and the share of successive days whose
            morning session comes at exactly the same time of day; for thermometers, the share
            of readings taken from 00:00 to 05:00.
"""
import json
import sys
from collections import defaultdict

import numpy as np

MINUTE, HOUR, DAY = 60_000, 3_600_000, 86_400_000
KINDS = {"heart-rate": "heartRate", "blood-pressure": "systolic", "weight": "weight",
         "temperature": "temperature", "daily-summary": "steps"}


def summaries(path):
    """Each daily summary's (steps, calories)."""
    out = []
    for line in open(path):
        r = json.loads(line)
        if r["kind"] == "daily-summary":
            out.append((r["stepCount"], r["caloriesBurned"]))
    return out


def load(path):
    """{signal: {patient: [(virtual ms, truth)]}} and the patients in file order."""
    series = defaultdict(lambda: defaultdict(list))
    order = []
    for line in open(path):
        r = json.loads(line)
        name = KINDS.get(r["kind"])
        if name is None or r.get("truth") is None:
            continue
        if r["patient"] not in order:
            order.append(r["patient"])
        series[name][r["patient"]].append((r["virtualMs"]["measured"], float(r["truth"])))
    return series, order


def whole_days(samples):
    last = max(t for t, _ in samples)
    days = last // DAY
    return [v for t, v in samples if t < days * DAY] if days >= 1 else [v for _, v in samples]


def between(path):
    series, order = load(path)
    out = {"patients": len(order), "mean": {}, "sd": {}}
    for name, by_patient in sorted(series.items()):
        # A daily summary comes at the midnight that ends its day.
        pick = (lambda s: [v for _, v in s]) if name == "steps" else whole_days
        # A patient whose only readings fall outside whole days (missed ones: adherence) adds none.
        means = [float(np.mean(v)) for v in map(pick, by_patient.values()) if v]
        out["mean"][name] = float(np.mean(means))
        out["sd"][name] = float(np.std(means, ddof=1)) if len(means) > 1 else 0.0
    hr = series["heartRate"]
    same = total = 0
    for a, b in zip(order, order[1:]):
        tb = dict(hr.get(b, []))
        for t, v in hr.get(a, []):
            if t in tb:
                total += 1
                same += abs(tb[t] - v) < 1e-9
    out["identicalHeartRate"] = same / total if total else None
    return out


def days(path):
    series, _ = load(path)
    correlations, identical, moves = [], [], []
    for samples in series["heartRate"].values():
        by_day = defaultdict(dict)
        for t, v in samples:
            by_day[t // DAY][t % DAY] = v
        full = max(len(s) for s in by_day.values())
        complete = {d for d, s in by_day.items() if len(s) >= 0.9 * full}
        for d in sorted(complete):
            if d + 1 not in complete:
                continue
            common = sorted(set(by_day[d]) & set(by_day[d + 1]))
            x = np.array([by_day[d][k] for k in common])
            y = np.array([by_day[d + 1][k] for k in common])
            correlations.append(float(np.corrcoef(x, y)[0, 1]))
            identical.append(float(np.mean(np.abs(x - y) < 1e-9)))
        # The lowest hourly mean between 22:00 and 10:00 of each night (hours since the evening's midnight).
        lows = []
        for d in sorted(by_day):
            night = [(k / HOUR, v) for k, v in by_day[d].items() if k >= 22 * HOUR]
            night += [(24 + k / HOUR, v) for k, v in by_day.get(d + 1, {}).items() if k < 10 * HOUR]
            if len(night) < 0.45 * full:
                continue
            hours = defaultdict(list)
            for h, v in night:
                hours[int(h * 2) / 2].append(v)  # half-hour bins
            centres = sorted(hours)
            smooth = [np.mean([np.mean(hours[c]) for c in centres[i:i + 2]]) for i in range(len(centres) - 1)]
            lows.append(centres[int(np.argmin(smooth))] + 0.5)
        moves += [abs(b - a) * 60 for a, b in zip(lows, lows[1:])]
    weights = series["weight"].values()
    changes = [b - a for s in weights for (_, a), (_, b) in zip(sorted(s), sorted(s)[1:])]
    days_ = [(steps, kcal) for steps, kcal in summaries(path) if steps > 0]
    per_step = [kcal / steps for steps, kcal in days_]
    return {
        "weightChangeSD": float(np.std(changes, ddof=1)) if len(changes) > 1 else None,
        "summaries": len(days_),
        "caloriesStepsCorrelation": float(np.corrcoef([d[0] for d in days_], [d[1] for d in days_])[0, 1])
        if len(days_) > 2 else None,
        "caloriesPerStepCV": float(np.std(per_step) / np.mean(per_step)) if per_step else None,
        "pairs": len(correlations),
        "medianCorrelation": float(np.median(correlations)) if correlations else None,
        "maxCorrelation": float(np.max(correlations)) if correlations else None,
        "maxIdentical": float(np.max(identical)) if identical else None,
        "nightLowMoveMinutes": float(np.median(moves)) if moves else None,
    }


def glucose(path):
    values, truths = defaultdict(list), defaultdict(list)
    for line in open(path):
        r = json.loads(line)
        if r["kind"] == "cgm":
            values[r["patient"]].append(float(r["value"]))
            truths[r["patient"]].append((r["virtualMs"]["measured"], float(r["truth"])))
    groups = defaultdict(list)
    for patient, v in values.items():
        g = np.array(v)
        truth = truths[patient]
        # The first steep rise of each day from 04:00: breakfast, which follows waking.
        by_minute = {t // MINUTE: x for t, x in truth}
        firsts = []
        for day in range(max(by_minute) // 1440 + 1):
            for m in range(day * 1440 + 240, day * 1440 + 1440 - 30):
                if m in by_minute and m + 30 in by_minute and by_minute[m + 30] - by_minute[m] > 20:
                    firsts.append((m % 1440) / 60)
                    break
        groups[patient.split("-")[0]].append({
            "mean": float(g.mean()), "cv": float(100 * g.std() / g.mean()),
            "above140": float(100 * np.mean(g > 140)), "above180": float(100 * np.mean(g > 180)),
            "above250": float(100 * np.mean(g > 250)), "inRange": float(100 * np.mean((g >= 70) & (g <= 180))),
            "below70": float(100 * np.mean(g < 70)), "below54": float(100 * np.mean(g < 54)),
            "firstRiseSD": float(np.std(firsts, ddof=1) * 60) if len(firsts) > 2 else 0.0,
            "truthSD": float(np.std([x for _, x in truth])),
        })
    out = {}
    for name, rows in sorted(groups.items()):
        keys = rows[0].keys()
        out[name] = {
            "patients": len(rows),
            "median": {k: float(np.median([r[k] for r in rows])) for k in keys},
            "min": {k: float(np.min([r[k] for r in rows])) for k in keys},
            "max": {k: float(np.max([r[k] for r in rows])) for k in keys},
        }
    return out

def devices(path):
    times = defaultdict(list)
    types = {}
    for line in open(path):
        r = json.loads(line)
        if r["kind"] in ("blood-pressure", "weight", "temperature"):
            times[r["device"]].append(r["virtualMs"]["measured"])
            types[r["device"]] = r["deviceType"]
    span = max(x for t in times.values() for x in t) // DAY + 1
    out = {}
    for kind in ("bp-cuff", "weight-scale"):
        per_day, spread, same = [], [], []
        for device in (d for d in times if types[d] == kind):
            t = sorted(times[device])
            sessions = [x for i, x in enumerate(t) if i == 0 or x - t[i - 1] >= 5 * MINUTE]
            per_day.append(len(sessions) / span)
            mornings = {}
            for x in sessions:
                if x % DAY < 12 * HOUR:
                    mornings.setdefault(x // DAY, x % DAY)
            clock = [mornings[d] / MINUTE for d in sorted(mornings)]
            spread.append(float(np.std(clock, ddof=1)) if len(clock) > 2 else 0.0)
            pairs = [(mornings[d], mornings[d + 1]) for d in mornings if d + 1 in mornings]
            same.append(sum(1 for a, b in pairs if a == b) / len(pairs) if pairs else 1.0)
        out[kind] = {"devices": len(per_day), "sessionsPerDay": float(np.mean(per_day)),
                     "morningSDMinutes": float(np.median(spread)), "sameTimeShare": float(np.mean(same))}
    night = [x % DAY < 5 * HOUR for d in times if types[d] == "thermometer" for x in times[d]]
    out["thermometer"] = {"readings": len(night), "nightShare": float(np.mean(night)) if night else 0.0}
    return out


if __name__ == "__main__":
    measure, path = sys.argv[1], sys.argv[2]
    print(json.dumps({"between": between, "days": days, "glucose": glucose, "devices": devices}[measure](path)))
