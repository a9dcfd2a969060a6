#!/usr/bin/env python3
"""Tables of 2026-12-04-replicas-cost.md from run.sh's raw.txt and load.txt (in the directory
given, default .): each run's values and load average at its start, every variant's median
[min-max], and the per-pair ratios over local."""
import re
import statistics
import sys
from pathlib import Path

d = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
METRICS = ["p50_ms", "p99_ms", "cpu_us_per_upgrade", "upgrades_per_s"]

runs = []  # (pair, variant, start "HH:MM:SS", {metric: value})
pair = variant = start = None
for line in (d / "raw.txt").read_text().splitlines():
    if m := re.match(r"pair (\d+): (\S+)", line):
        pair, variant = int(m[1]), m[2]
    elif m := re.match(r"# \d{4}-\d\d-\d\dT(\d\d:\d\d:\d\d)Z", line):
        start = m[1]
    elif "proxy:" in line:
        values = dict(kv.split("=") for kv in line.split("proxy:")[1].split())
        runs.append((pair, variant, start, {k: float(values[k]) for k in METRICS}))

loads = []  # ("HH:MM:SS", load1)
for line in (d / "load.txt").read_text().splitlines():
    f = line.split()
    loads.append((f[0], float(f[2])))


def load_at(t):
    """The first sample at or after t (sampled every 2 s)."""
    return next((l for s, l in loads if s >= t), loads[-1][1])


variants = list(dict.fromkeys(v for _, v, _, _ in runs))
print("Each run (load: the 1-minute load average sampled at or just after its start):\n")
print("| pair | variant | start (UTC) | load | " + " | ".join(METRICS) + " |")
print("|---|---|---|---|" + "---|" * len(METRICS))
for p, v, s, m in runs:
    print(f"| {p} | {v} | {s} | {load_at(s):.1f} | " + " | ".join(f"{m[k]:.3f}" if k != "upgrades_per_s" else f"{m[k]:.0f}" for k in METRICS) + " |")


def mmm(xs, fmt):
    return f"{fmt(statistics.median(xs))} [{fmt(min(xs))}-{fmt(max(xs))}]"


print("\nMedian [min-max] over the runs:\n")
print("| variant | " + " | ".join(METRICS) + " |")
print("|---|" + "---|" * len(METRICS))
by = {v: {p: m for p, vv, _, m in runs if vv == v} for v in variants}
for v in variants:
    cells = [mmm([m[k] for m in by[v].values()], (lambda x: f"{x:.0f}") if k == "upgrades_per_s" else (lambda x: f"{x:.3f}")) for k in METRICS]
    print(f"| {v} | " + " | ".join(cells) + " |")

print("\nPer-pair ratios over local, median [min-max]; then each pair's ratio (pair 1 to 8):\n")
print("| variant | metric | median [min-max] | pairs |")
print("|---|---|---|---|")
for v in variants[1:]:
    for k in METRICS:
        rs = [by[v][p][k] / by["local"][p][k] for p in sorted(by[v]) if p in by["local"]]
        print(f"| {v}/local | {k} | {mmm(rs, lambda x: f'{x:.2f}')} | " + ", ".join(f"{r:.2f}" for r in rs) + " |")
print("\nDifferences from local, median of the per-pair differences [min-max]:\n")
print("| variant | p50, ms | relay CPU per session, µs |")
print("|---|---|---|")
for v in variants[1:]:
    dp = [by[v][p]["p50_ms"] - by["local"][p]["p50_ms"] for p in sorted(by[v])]
    dc = [by[v][p]["cpu_us_per_upgrade"] - by["local"][p]["cpu_us_per_upgrade"] for p in sorted(by[v])]
    print(f"| {v} | {mmm(dp, lambda x: f'{x:+.3f}')} | {mmm(dc, lambda x: f'{x:+.1f}')} |")
