"""Plots ci/bench-devices.sh's figures: peak memory and CPU time of one `vitalsim run` process
against the devices it simulates. Usage: plot_devices.py DEVICES.csv OUT.png SPEED DURATION"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
devices = [int(r["devices"]) for r in rows]
rss = [float(r["max_rss_mb"]) for r in rows]
cpu = [float(r["cpu_s"]) for r in rows]
fig, left = plt.subplots(figsize=(7, 4), dpi=110)
left.plot(devices, rss, "o-", color="tab:blue", label="peak RSS (MB)")
left.axhline(1024, color="tab:blue", linestyle=":", linewidth=1)
left.set_xlabel("simulated devices (one process)")
left.set_ylabel("peak RSS (MB)", color="tab:blue")
left.set_ylim(bottom=0)
right = left.twinx()
right.plot(devices, cpu, "s--", color="tab:red", label="CPU time (s)")
right.set_ylabel("CPU time, user + system (s)", color="tab:red")
right.set_ylim(bottom=0)
left.set_title(f"vitalsim run: memory and CPU by devices ({sys.argv[4]} scenario at --speed {sys.argv[3]})")
for d, m in zip(devices, rss):
    left.annotate(f"{m:.0f} MB", (d, m), textcoords="offset points", xytext=(4, 6), fontsize=8, color="tab:blue")
fig.tight_layout()
fig.savefig(sys.argv[2])
