#!/usr/bin/env python3
"""Tables of 2026-12-04-loop-placement.md from the runs' JSON (mbbench ab --json) and the ladder
steps' text output: each variant's median [min-max], and def over each other variant per pair."""
import glob, json, os, re, statistics, sys

W = sys.argv[1] if len(sys.argv) > 1 else "."
MET = ["cpu_ns_per_frame", "frames_per_s", "relay_cores", "gen_cores", "switches_per_kframe", "p99_ms"]


def mmm(xs):
    return f"{statistics.median(xs):.3g} [{min(xs):.3g}-{max(xs):.3g}]"


def closed_loop(path):
    try:
        d = json.load(open(path))
    except ValueError:
        return  # a run still going, or one that failed (raw.txt says)
    names = [v["name"] if isinstance(v, dict) else v for v in d["variants"]]
    name = os.path.basename(path)[:-5]
    print(f"\n#### {name}\n")
    print("| variant | " + " | ".join(MET) + " |")
    print("| --- |" + " ---: |" * len(MET))
    for n, s in zip(names, d["summary"]):
        print(f"| {n} | " + " | ".join(f"{s[m]['median']:.4g} [{s[m]['min']:.4g}-{s[m]['max']:.4g}]" for m in MET) + " |")
    print("\n| def over | CPU per frame | frames/s | relay cores |")
    print("| --- | ---: | ---: | ---: |")
    for n, r in zip(names[1:], d["ratios"][1:]):
        row = []
        for m in ["cpu_ns_per_frame", "frames_per_s", "relay_cores"]:
            row.append(mmm([1 / x for x in r[m]]))  # ratios are variant/def: invert for def/variant
        print(f"| {n} | " + " | ".join(row) + " |")


def ladder():
    steps = {}
    for f in sorted(glob.glob(os.path.join(W, "ladder-*.txt"))):
        m = re.match(r"ladder-(\w+)-(\d+)-(\d+)\.txt", os.path.basename(f))
        v, count, pair = m.group(1), int(m.group(2)), int(m.group(3))
        txt = open(f).read()
        cores = re.findall(r"relay ([0-9.]+) cores", txt)
        gen = re.findall(r"generator ([0-9.]+) cores", txt)
        if cores:
            steps.setdefault(count, {}).setdefault(v, {})[pair] = (float(cores[-1]), float(gen[-1]) if gen else float("nan"))
    for count in sorted(steps):
        print(f"\n#### paced {count}\n")
        print("| variant | relay cores | generator cores |")
        print("| --- | ---: | ---: |")
        for v, ps in steps[count].items():
            print(f"| {v} | {mmm([c for c, _ in ps.values()])} | {mmm([g for _, g in ps.values()])} |")
        base = steps[count].get("def", {})
        for v, ps in steps[count].items():
            if v == "def":
                continue
            rs = [base[p][0] / ps[p][0] for p in ps if p in base and ps[p][0] > 0]
            if rs:
                print(f"\ndef/{v} relay cores per pair: {mmm(rs)} ({', '.join(f'{x:.2f}' for x in rs)})")


for p in sorted(glob.glob(os.path.join(W, "*.json"))):
    closed_loop(p)
ladder()
