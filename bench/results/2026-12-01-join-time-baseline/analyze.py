#!/usr/bin/env python3
"""Tables of 2026-12-01-join-time-baseline.md (and -early-data.md) from the runs' JSON reports
(mbbench join --json). The differences are from each run's first path.

Usage: analyze.py run-a.json [run-b.json ...]
"""
import json
import statistics
import sys


def rng(r, digits=1):
    return f"{r['median']:.{digits}f} [{r['min']:.{digits}f}-{r['max']:.{digits}f}]"


# The round trips each path's protocols take to Login Success.
MODEL = {"raw": 2, "ws": 3, "wss": 4, "ws-ed": 2, "wss-ed": 3}


def report(path):
    rep = json.load(open(path))
    base = rep["summary"]["cells"][0]["paths"][0]["path"]
    print(f"### {path}: `mbbench {' '.join(rep['meta']['args'])}`\n")
    print(f"| RTT | path | login success, ms | in RTTs | connect, ms | − {base}, ms | − {base}, RTTs |")
    print("|---|---|---|---|---|---|---|")
    for c in rep["summary"]["cells"]:
        rtt = round(c["rtt_ns"] / 1e6)
        for p in c["paths"]:
            diff = rng(p["diff_ms"]) if p["diff_ms"]["n"] else "-"
            diffr = rng(p["diff_rtts"], 3) if p["diff_rtts"]["n"] else "-"
            print(f"| {rtt} ms | {p['path']} | {rng(p['login_success_ms'])} | {p['in_rtts']:.3f} | "
                  f"{rng(p['connect_ms'], 2)} | {diff} | {diffr} |")
    print("\n| path | round trips (slope) | fixed, ms (intercept) |\n|---|---|---|")
    for f in rep["summary"]["fits"]:
        print(f"| {f['path']} | {f['round_trips']:.3f} | {f['fixed_ms']:.2f} |")
    print(f"\nPer-pair differences from {base}, RTTs (round 1, 2, ...):\n")
    print("| RTT | path | pairs |\n|---|---|---|")
    for c in rep["summary"]["cells"]:
        for p in c["paths"][1:]:
            print(f"| {round(c['rtt_ns'] / 1e6)} ms | {p['path']} | {', '.join(f'{v:.2f}' for v in p['pairs_rtts'])} |")
    print("\nEvery join (not round medians): login success minus the model's round trips"
          f" ({', '.join(f'{k} {v}' for k, v in MODEL.items())} RTTs), ms, quartiles and 90th percentile:\n")
    print("| RTT | path | joins | p25 | p50 | p75 | p90 | max |\n|---|---|---|---|---|---|---|---|")
    for c in rep["summary"]["cells"]:
        for p in c["paths"]:
            xs = sorted((s["login_success_ns"] - MODEL.get(p["path"], 0) * c["rtt_ns"]) / 1e6
                        for s in rep["samples"] if s["rtt_ns"] == c["rtt_ns"] and s["path"] == p["path"])
            q = statistics.quantiles(xs, n=20)
            print(f"| {round(c['rtt_ns'] / 1e6)} ms | {p['path']} | {len(xs)} | {q[4]:.1f} | {q[9]:.1f} | "
                  f"{q[14]:.1f} | {q[17]:.1f} | {xs[-1]:.1f} |")
    for way in ("player_to_edge", "edge_to_player"):
        l = rep["link"][way]
        print(f"\nLink {way}: {l['packets']} packets, {l['bytes']} bytes, {l['dropped']} dropped; late p50 "
              f"{l['late_p50_ns'] / 1e3:.0f} µs, p99 {l['late_p99_ns'] / 1e3:.0f} µs, max {l['late_max_ns'] / 1e6:.1f} ms")
    print()


for arg in sys.argv[1:]:
    report(arg)
