#!/usr/bin/env python3
"""Rule D1 of 2026-12-01-join-time-early-data-login-start.md from the runs' JSON reports
(mbbench join --json): per cell, the early-data joins that took less than the median join of the
path without early data (the run's first path) in the same cell minus half an RTT.

Usage: saved.py ws.json wss.json
"""
import json
import statistics
import sys


def saved(path):
    rep = json.load(open(path))
    base = rep["summary"]["cells"][0]["paths"][0]["path"]
    ed = base + "-ed"
    print(f"### {path}: {ed} joins under median({base}) − 0.5 RTT\n")
    print(f"| RTT | median {base} join, ms | threshold, ms | {ed} joins under it | share | slowest {ed}, ms |")
    print("|---|---|---|---|---|---|")
    for c in rep["summary"]["cells"]:
        rtt = c["rtt_ns"]
        joins = lambda p: [s["login_success_ns"] for s in rep["samples"] if s["rtt_ns"] == rtt and s["path"] == p]
        threshold = statistics.median(joins(base)) - rtt / 2
        eds = joins(ed)
        under = sum(1 for x in eds if x < threshold)
        print(f"| {round(rtt / 1e6)} ms | {statistics.median(joins(base)) / 1e6:.1f} | {threshold / 1e6:.1f} | "
              f"{under} of {len(eds)} | {under / len(eds):.1%} | {max(eds) / 1e6:.1f} |")
    print()


for arg in sys.argv[1:]:
    saved(arg)
