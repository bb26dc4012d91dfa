"""Plots ci/bench-devices.sh's figures: peak memory and CPU time of one `vitalsim run` process
against the devices it simulates; with SHARDED.csv (ci/bench-shards.sh's runs: devices, shards,
speed, cpu_s, max_rss_mb with the shards' figures summed, passed), those that passed too, on logarithmic axes.
Usage: plot_devices.py DEVICES.csv OUT.png SPEED DURATION [SHARDED.csv]"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
# Only the sharded runs whose merged verdict passed: a run that fell behind says nothing of what
# keeping pace costs.
sharded = [r for r in csv.DictReader(open(sys.argv[5])) if r["passed"] == "yes"] if len(sys.argv) > 5 else []
devices = [int(r["devices"]) for r in rows]
rss = [float(r["max_rss_mb"]) for r in rows]
cpu = [float(r["cpu_s"]) for r in rows]
fig, left = plt.subplots(figsize=(7, 4), dpi=110)
left.plot(devices, rss, "o-", color="tab:blue", label="peak RSS (MB)")
left.axhline(1024, color="tab:blue", linestyle=":", linewidth=1)
left.set_xlabel("simulated devices (one process)" if not sharded else "simulated devices")
left.set_ylabel("peak RSS (MB)", color="tab:blue")
right = left.twinx()
right.plot(devices, cpu, "s--", color="tab:red", label="CPU time (s)")
right.set_ylabel("CPU time, user + system (s)", color="tab:red")
for d, m in zip(devices, rss):
    left.annotate(f"{m:.0f} MB", (d, m), textcoords="offset points", xytext=(4, 6), fontsize=8, color="tab:blue")
if sharded:
    # A million devices span three decades: logarithmic axes, the sharded runs as hollow markers.
    for axis in (left, right):
        axis.set_xscale("log")
        axis.set_yscale("log")
    for r in sharded:
        d, m, c = int(r["devices"]), float(r["max_rss_mb"]), float(r["cpu_s"])
        left.plot([d], [m], "o", mfc="none", color="tab:blue", markersize=9)
        right.plot([d], [c], "s", mfc="none", color="tab:red", markersize=9)
        left.annotate(
            f"{m:.0f} MB, {r['shards']} shards\n(--speed {r['speed']}, summed)",
            (d, m),
            textcoords="offset points",
            xytext=(-120, -26),
            fontsize=8,
            color="tab:blue",
        )
    # Headroom above the largest run, so that its marker stays clear of the title.
    left.set_ylim(top=max(rss + [float(r["max_rss_mb"]) for r in sharded]) * 3)
    right.set_ylim(top=max(cpu + [float(r["cpu_s"]) for r in sharded]) * 3)
    left.set_title(
        f"vitalsim run: memory and CPU by devices ({sys.argv[4]} scenario; one process at --speed {sys.argv[3]})",
        fontsize=9,
    )
else:
    left.set_ylim(bottom=0)
    right.set_ylim(bottom=0)
    left.set_title(f"vitalsim run: memory and CPU by devices ({sys.argv[4]} scenario at --speed {sys.argv[3]})")
fig.tight_layout()
fig.savefig(sys.argv[2])
