#!/usr/bin/env python3
"""Tables of 2026-12-01-transfer.md from run.sh's output directory, or raw/ (argv[1])."""
import glob, json, os, re, statistics, sys

out = sys.argv[1]

def load(name):
    with open(os.path.join(out, name + ".json")) as f:
        lines = [l for l in f if l.strip().startswith("{")]
    return json.loads(lines[-1])

def drain_seconds(name):
    """Seconds from A's "shutting down" line to its "drained" line (the log's 1 s resolution)."""
    from datetime import datetime
    t = {}
    path = os.path.join(out, name + ".a.log")
    if not os.path.exists(path):  # raw/ keeps only the drain's lines of A's log
        path = os.path.join(out, name + ".drain.log")
    for line in open(path):
        if line.startswith("{"):
            e = json.loads(line)
            if e.get("message") in ("shutting down", "drained"):
                t[e["message"]] = datetime.fromisoformat(e["time"].replace("Z", "+00:00"))
    return (t["drained"] - t["shutting down"]).total_seconds()

def med(xs):
    return f"{statistics.median(xs):.0f} [{min(xs):.0f}-{max(xs):.0f}]"

print("| N | variant | moved | disconnected (told) | lost | stayed | SIGTERM to last back in play, ms | per-player SIGTERM to Transfer, ms (median of medians) | Transfer to back in play, ms (median of medians) | A's drain, s | bad echoes |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for n in (100, 1000):
    for v in ("transfer", "told", "old"):
        runs = [load(f"{v}-{n}-{i}") for i in range(1, 9)]
        sums = lambda k: "/".join(str(r[k]) for r in runs)
        bad = sum(r["echo_before"]["bad"] + r["echo_after"]["bad"] for r in runs)
        if v == "transfer":
            last = med([r["last_back_ms"] for r in runs])
            tr = med([r["transfer_ms"]["median"] for r in runs])
            mv = med([r["move_ms"]["median"] for r in runs])
        else:
            last = tr = mv = "-"
        drains = [drain_seconds(f"{v}-{n}-{i}") for i in range(1, 9)]
        print(f"| {n} | {v} | {sums('moved')} | {sums('disconnected')} | {sums('lost')} | {sums('stayed')} | {last} | {tr} | {mv} | {med(drains)} | {bad} |")

cost = {}
for line in open(os.path.join(out, "cost.txt")):
    m = re.match(r"cost-(on|off)-(\d+) cpu_s=([\d.]+) wall_s=([\d.]+)", line)
    if m:
        cost[(m[1], int(m[2]))] = float(m[3]) / float(m[4])
print()
print("| pair | on, cores | off, cores | on/off |")
print("|---|---|---|---|")
ratios = []
for i in range(1, 9):
    on, off = cost[("on", i)], cost[("off", i)]
    ratios.append(on / off)
    print(f"| {i} | {on:.3f} | {off:.3f} | {on/off:.3f} |")
ons = [cost[("on", i)] for i in range(1, 9)]
offs = [cost[("off", i)] for i in range(1, 9)]
print(f"| median [min-max] | {statistics.median(ons):.3f} [{min(ons):.3f}-{max(ons):.3f}] | "
      f"{statistics.median(offs):.3f} [{min(offs):.3f}-{max(offs):.3f}] | "
      f"{statistics.median(ratios):.3f} [{min(ratios):.3f}-{max(ratios):.3f}] |")
