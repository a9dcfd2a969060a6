#!/usr/bin/env python3
"""Tables of the loop-workloads record: per ab run, median [min-max] per variant, and per-pair
ratios FIRST/X (mbbench ab's own ratios are X/FIRST, the first variant being the baseline)."""
import json, statistics, sys, os

order = ["echo-4", "m1-4", "m8-4", "burst-4", "echo-200", "m1-200", "m8-200", "burst-200"]
def fmt(s, p): return f"{s['median']:.{p}f} [{s['min']:.{p}f}-{s['max']:.{p}f}]"
def inv(r, k): return [1 / x if x else float('inf') for x in r[k]]
summary = []
for wl in order:
    for tr in ["tcp", "ws", "wss"]:
        f = f"{wl}-{tr}.json"
        if not os.path.exists(f) or os.path.getsize(f) == 0:
            continue
        d = json.load(open(f))
        names = [v["name"] for v in d["variants"]]
        print(f"### {wl} {tr}\n")
        print("| variant | frames/s | p50 ms | p99 ms | CPU ns/frame | TCP segs/frame | RSS KiB |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
        for n, s in zip(names, d["summary"]):
            print(f"| {n} | {fmt(s['frames_per_s'],0)} | {fmt(s['p50_ms'],3)} | {fmt(s['p99_ms'],3)} | {fmt(s['cpu_ns_per_frame'],0)} | {fmt(s['segs_per_frame'],3)} | {fmt(s['rss_kib'],0)} |")
        print()
        print("| ratio | CPU/frame per pair | CPU median [min-max] | frames/s median | p99 median |")
        print("| --- | --- | ---: | ---: | ---: |")
        for n, r in zip(names[1:], d["ratios"][1:]):
            c = inv(r, "cpu_ns_per_frame")
            fs, p99 = inv(r, "frames_per_s"), inv(r, "p99_ms")
            med = statistics.median(c)
            print(f"| {names[0]}/{n} | {', '.join(f'{x:.2f}' for x in c)} | **{med:.3f}** [{min(c):.2f}-{max(c):.2f}] | {statistics.median(fs):.3f} | {statistics.median(p99):.3f} |")
            summary.append((wl, tr, f"{names[0]}/{n}", med, min(c), max(c), statistics.median(fs), statistics.median(p99)))
        print()
print("### Summary: medians of the per-pair ratios\n")
print("| workload | transport | ratio | CPU/frame [min-max] | frames/s | p99 |")
print("| --- | --- | --- | ---: | ---: | ---: |")
for wl, tr, n, med, lo, hi, fs, p99 in summary:
    print(f"| {wl} | {tr} | {n} | {med:.3f} [{lo:.2f}-{hi:.2f}] | {fs:.3f} | {p99:.3f} |")
