#!/usr/bin/env python3
"""Tables of bench/results/2026-12-01-cores.md from the runs' JSON (mbbench ab --json).

Usage: analyze.py DIR   (DIR holds run.sh's NAME.json files)
"""
import json
import re
import statistics
import sys
from pathlib import Path

RUNS = ["echo-4-tcp", "m8-4-tcp", "echo-200-tcp", "m8-200-tcp", "echo-2000-tcp", "m8-2000-tcp",
        "echo-200-ws", "echo-4-tcp-pinned", "echo-200-tcp-pinned", "m8-2000-tcp-pinned",
        "upgrades-ws", "upgrades-wss"]
FRAMES = ["cpu_ns_per_frame", "frames_per_s", "p99_ms", "relay_cores", "gen_cores",
          "switches_per_kframe", "migrations_per_kframe"]
UPGRADES = ["upgrades_per_s", "cpu_us_per_upgrade", "p99_ms"]


def num(v):
    a = abs(v)
    if a >= 1000:
        return f"{v:.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 10:
        return f"{v:.2f}"
    return f"{v:.3f}"


def rng(r):
    return f"{num(r['median'])} [{num(r['min'])}-{num(r['max'])}]"


def ratio(values):
    return f"{statistics.median(values):.3f} [{min(values):.2f}-{max(values):.2f}]"


def pair_ratios(c, a, b, metric):
    """Per-pair ratios of variant a over variant b (indices), from the ratios over variant 0."""
    ra = c["ratios"][a].get(metric) if a else [1.0] * c["pairs"]
    rb = c["ratios"][b].get(metric) if b else [1.0] * c["pairs"]
    if not ra or not rb or 0 in rb:
        return None
    return [x / y for x, y in zip(ra, rb)]


def table(name, c):
    names = [v["name"] for v in c["variants"]]
    metrics = UPGRADES if name.startswith("upgrades") else FRAMES
    metrics = [m for m in metrics if m in c["summary"][0]]
    print(f"#### {name}\n")
    limit = 0.95 if name.endswith("pinned") else 1.0
    bound = any(s.get("gen_cores", {}).get("median", 0) >= limit for s in c["summary"])
    if bound:
        print(f"Generator-bound (a variant's median gen_cores >= {limit}): frames/s and p99 not used for capacity.\n")
    print("| variant | " + " | ".join(metrics) + " |")
    print("| --- |" + " ---: |" * len(metrics))
    for i, n in enumerate(names):
        print(f"| {n} | " + " | ".join(rng(c["summary"][i][m]) if m in c["summary"][i] else "-" for m in metrics) + " |")
    print()
    print("Per-pair ratios, median [min-max] of 8:\n")
    print("| ratio | " + " | ".join(metrics) + " |")
    print("| --- |" + " ---: |" * len(metrics))
    rows = [(i, 0) for i in range(1, len(names)) if not names[i].startswith("h")]
    for knob in ("lock", "aff", "spin"):  # D2 and D3 compare each knob with lN
        if knob in names:
            rows.append((names.index(knob), names.index("lN")))
    if "h1" in names and "h2" in names:
        rows.append((names.index("h2"), names.index("h1")))
        rows.append((names.index(names[0]), names.index("h1")))
        rows.append((1, names.index("h2")))  # the loops at one per core against HAProxy's threads
    for a, b in rows:
        cells = []
        for m in metrics:
            r = pair_ratios(c, a, b, m)
            cells.append(ratio(r) if r else "-")
        print(f"| {names[a]}/{names[b]} | " + " | ".join(cells) + " |")
    print()


LADDER = re.compile(r"^ladder play (\d+): (\w+) added p99 ([\d.-]+) ms, relay ([\d.]+) cores .*; "
                    r"generator ([\d.]+) cores, late p99 ([\d.]+) ms")


def ladder(d):
    """Series 4: paced players, from run2.sh's ladder-raw.txt."""
    steps = {}  # (count, variant) -> {pair: (added, relay, gen, late, verdict)}
    p = d / "ladder-raw.txt"
    if not p.exists():
        return
    current = None
    for line in p.read_text().splitlines():
        head = re.match(r"^### ladder (\w+) (\d+) pair (\d+)", line)
        if head:
            current = (head[1], int(head[2]), int(head[3]))
            continue
        m = LADDER.match(line)
        if m and current:
            variant, count, pair = current
            steps.setdefault((count, variant), {})[pair] = (
                float(m[3]), float(m[4]), float(m[5]), float(m[6]), m[2])
    for count in sorted({c for c, _ in steps}):
        print(f"#### paced players, {count}\n")
        print("| variant | pairs | added p99 ms | relay cores | generator cores | late p99 ms | verdicts |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
        for v in ("l1", "lN"):
            rows = steps.get((count, v), {})
            cols = list(zip(*rows.values())) if rows else []
            cells = [summ(cols[i]) if cols else "-" for i in range(4)]
            verdicts = ", ".join(sorted(set(cols[4]))) if cols else "-"
            print(f"| {v} | {len(rows)} | " + " | ".join(cells) + f" | {verdicts} |")
        a, b = steps.get((count, "lN"), {}), steps.get((count, "l1"), {})
        pairs = sorted(set(a) & set(b))
        if pairs:
            print()
            print(f"lN/l1 per pair ({len(pairs)}): added p99 "
                  + ratio([a[p][0] / b[p][0] for p in pairs if b[p][0] > 0])
                  + ", relay cores " + ratio([a[p][1] / b[p][1] for p in pairs]))
        print()


def summ(values):
    return f"{num(statistics.median(values))} [{num(min(values))}-{num(max(values))}]"


def main():
    d = Path(sys.argv[1])
    for name in RUNS:
        p = d / f"{name}.json"
        if not p.exists() or p.stat().st_size == 0:
            print(f"#### {name}\n\nnot run\n")
            continue
        table(name, json.loads(p.read_text()))
    ladder(d)


if __name__ == "__main__":
    main()
