#!/usr/bin/env python3
"""Tables of 2026-12-01-raw-stream.md from the runs' JSON reports (mbbench wire --json).

Usage: analyze.py modded-ws.json modded-wss.json small-ws.json small-wss.json
"""
import json
import statistics
import sys

METRICS = ["cpu_ns_per_frame", "bridge_cpu_ns_per_frame", "tcp_payload_per_frame", "wire_bytes_per_frame",
           "wire_packets_per_frame", "frames_per_s", "p50_ms", "relay_cores", "bridge_cores", "gen_cores"]


def num(v):
    return f"{v:.0f}" if abs(v) >= 1000 else f"{v:.1f}" if abs(v) >= 100 else f"{v:.2f}" if abs(v) >= 10 else f"{v:.3f}"


def rng(r):
    return f"{num(r['median'])} [{num(r['min'])}-{num(r['max'])}]"


def report(path):
    c = json.load(open(path))["comparison"]
    names = [v["name"] for v in c["variants"]]
    print(f"### {path} ({c['pairs']} pairs)\n")
    print("| metric | " + " | ".join(names) + f" | {names[1]}/{names[0]} per pair, median [min-max] | pairs below 1 |")
    print("|---" * (len(names) + 3) + "|")
    for m in METRICS:
        ratios = c["ratios"][1].get(m, [])
        med = statistics.median(ratios) if ratios else float("nan")
        below = sum(1 for r in ratios if r < 1)
        print(f"| {m} | " + " | ".join(rng(s[m]) for s in c["summary"]) +
              f" | {med:.3f} [{min(ratios):.3f}-{max(ratios):.3f}] | {below} of {len(ratios)} |")
    print(f"\nPer-pair ratios {names[1]}/{names[0]}:\n")
    for m in ("cpu_ns_per_frame", "bridge_cpu_ns_per_frame", "tcp_payload_per_frame"):
        print(f"- {m}: " + ", ".join(f"{r:.2f}" for r in c["ratios"][1][m]))
    print()


for arg in sys.argv[1:]:
    report(arg)
