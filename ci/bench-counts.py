#!/usr/bin/env python3
"""Reading counts at scale: loads N heart-rate readings of one patient into a running
`vitalsim serve` (1,000 per batch, 10 s apart) and times `/readings/counts` by day, by month, and
with a kind filter (the one form still counted from the readings).

Usage: ci/bench-counts.py BASE_URL N   (against `vitalsim serve --rate-limit 0`)
"""
import json, sys, time, urllib.request, datetime
base = sys.argv[1]; n = int(sys.argv[2])
t0 = datetime.datetime(2024, 11, 1, tzinfo=datetime.timezone.utc)
start = time.time()
for b in range(n // 1000):
    items = []
    for i in range(1000):
        k = b * 1000 + i
        ts = (t0 + datetime.timedelta(seconds=k * 10)).strftime("%Y-%m-%dT%H:%M:%SZ")
        items.append({"readingId": "r%d" % k, "patientId": "900", "deviceId": "hr", "kind": "heart-rate", "value": 70, "unit": "/min", "timestamp": ts})
    req = urllib.request.Request(base + "/api/v1/observations", data=json.dumps(items).encode(), headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req).read()
print("loaded %d in %.1f s" % (n, time.time() - start))
for q in ["by=day", "by=month", "by=day&kind=heart-rate"]:
    t = time.time(); body = urllib.request.urlopen(base + "/api/v1/patients/900/readings/counts?" + q).read(); 
    print(q, "%.3f s" % (time.time() - t), len(json.loads(body)["counts"]), "rows")
