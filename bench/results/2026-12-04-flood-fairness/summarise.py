#!/usr/bin/env python3
"""The table of the flood fairness record from the JSON reports of run.sh: one row per run, then
median [min-max] per case, build and source."""
import glob
import json
import os
import re
import statistics
import sys

TEXT = re.compile(r'"text":"([^"]*)"')
RUN = re.compile(r"r(\d+)-(attack|spread|meter-noblock|meter)-(new|old)(?:-(addr|24))?\.json$")


def runs(folder):
    for path in sorted(glob.glob(os.path.join(folder, "r*.json"))):
        m = RUN.search(os.path.basename(path))
        if not m:
            continue
        try:
            with open(path) as f:
                rep = json.load(f)
        except (OSError, ValueError):
            print(f"{os.path.basename(path)}: no report (see its .raw.txt)", file=sys.stderr)
            continue
        rep_, case, build, src = m.groups()
        yield int(rep_), case, build, src or "spread", rep


def row(rep):
    rates = [b["achieved_rate"] for b in rep.get("bursts") or []]
    samples = rep.get("samples") or []
    probes = rep.get("probes") or []
    failed = sum(1 for s in samples if s["attack_mode"] < 0)
    ms = [p["ms"] for p in probes]
    answers = sorted({short(p.get("answer", "")) for p in probes if not p["ok"]})
    return {
        "rate": min(rates) if rates else 0,
        "on": rep.get("mode_on_samples", 0),
        "samples": len(samples),
        "failed": failed,
        "ok": rep.get("probes_ok", 0),
        "probes": len(probes),
        "ms": statistics.median(ms) if ms else 0,
        "max_ms": max(ms) if ms else 0,
        "answers": answers,
    }


def short(answer):
    """A status answer's description text, else the first 90 characters."""
    m = TEXT.search(answer)
    return (m.group(1) if m else answer)[:90]


def spread(xs):
    if not xs:
        return "-"
    return f"{statistics.median(xs):g} [{min(xs):g}-{max(xs):g}]"


def main(folder):
    rows = [(r, c, b, s, row(rep)) for r, c, b, s, rep in runs(folder)]
    print("| repeat | case | build | attacker | lowest burst rate /s | attack mode on (samples) | player ok | player ms median (max) | what the player got otherwise |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r, c, b, s, x in sorted(rows, key=lambda t: (t[1], t[3], t[2], t[0])):
        fail = f" ({x['failed']} reads failed)" if x["failed"] else ""
        print(f"| {r} | {c} | {b} | {s} | {x['rate']:.0f} | {x['on']} of {x['samples']}{fail} | {x['ok']} of {x['probes']} | {x['ms']:.0f} ({x['max_ms']:.0f}) | {'; '.join(x['answers'])} |")
    print()
    print("| case | build | attacker | runs | attack mode on (samples), median [min-max] | player ok, median [min-max] |")
    print("| --- | --- | --- | --- | --- | --- |")
    groups = {}
    for r, c, b, s, x in rows:
        groups.setdefault((c, s, b), []).append(x)
    for (c, s, b), xs in sorted(groups.items()):
        print(f"| {c} | {b} | {s} | {len(xs)} | {spread([x['on'] for x in xs])} of {spread([x['samples'] for x in xs])} | {spread([x['ok'] for x in xs])} of {spread([x['probes'] for x in xs])} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
