#!/usr/bin/env python3
"""Idle memory of the loop-workloads record: RSS per session and goroutines per idle session,
per label and round, from idle.txt (sessions 2000)."""
import re, statistics, sys
from collections import defaultdict
text = open(sys.argv[1] if len(sys.argv) > 1 else "idle.txt").read()
rss, gor = defaultdict(list), defaultdict(list)
for block in text.split("### idle ")[1:]:
    head = block.split("\n", 1)[0]
    label, rnd = head.split()[0], head.split()[2]
    m = re.search(r"idle sessions: (\d+), proxy RSS (\d+) -> (\d+) KiB, (\d+) bytes per session", block)
    if m:
        rss[label].append(int(m.group(4)))
    counts = [int(x) for x in re.findall(r"^\d\d:\d\d:\d\d\.\d+ (\d+)$", block, re.M)]
    if counts:
        gor[label].append((counts[0], max(counts), (max(counts) - counts[0]) / 2000))
print("| relay | RSS bytes per idle session, rounds | median | goroutines: first, peak, per session |")
print("| --- | --- | ---: | --- |")
for label in rss:
    g = "; ".join(f"{a}, {b}, {c:.4f}" for a, b, c in gor.get(label, [])) or "-"
    print(f"| {label} | {', '.join(map(str, rss[label]))} | **{statistics.median(rss[label]):.0f}** | {g} |")
