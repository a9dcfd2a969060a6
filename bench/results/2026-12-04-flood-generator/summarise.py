#!/usr/bin/env python3
"""The tables of the flood generator record from run.sh's JSON reports (rN-SET.json beside this
script): one row per set, class, transport and rate, median [min-max] over the runs; then every
step of every run. Run: python3 summarise.py > results.md

With --profile, the cost per connection from profile.sh's reports (profile/*.json): mbbench's
and the relay's CPU over the flood's window less their CPU at 1 connection a second (the
players alone), per connection started, and the epoll threads' own CPU per connection.
Run: python3 summarise.py --profile > profile/profile.md"""
import glob
import json
import math
import os
import re
import statistics
import sys
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))


def steps():
    for path in sorted(glob.glob(os.path.join(HERE, "r*-*.json"))):
        m = re.match(r"r(\d+)-(.+)\.json$", os.path.basename(path))
        if not m:
            continue
        try:
            rep = json.load(open(path))
        except json.JSONDecodeError:
            print(f"<!-- {os.path.basename(path)}: no report (the run failed or was cut) -->")
            continue
        for st in rep["steps"]:
            yield int(m.group(1)), m.group(2), st


def values(st, base):
    f = st["flood"]
    w = f["window_s"] or 1
    took = f["answered"] + f["closed_by_proxy"]
    rate = max(f["achieved_rate"], 1)
    return {
        "offered/s": f["achieved_rate"],
        "relay answered or closed /s": took / w,
        "connect failed": f["connect_failed"] + f["other"],
        "listen drops": st.get("listen_drops", 0),
        "players kept": st["legit_alive"],
        "broken": st["legit_broken"],
        "relay cores": st["proxy_cores"],
        "RSS MiB": st["proxy_rss_peak_kib"] / 1024,
        "added p99 ms": st["legit_p99_ms"] - st["direct_p99_ms"],
        "mbbench cores": st["generator_cores"],
        # per connection only where there are enough of them (not in the baseline's 1/s)
        "relay us/conn over players": (st["proxy_cores"] - base[0]) * 1e6 / rate if rate >= 100 else math.nan,
        "mbbench us/conn over players": (st["generator_cores"] - base[1]) * 1e6 / rate if rate >= 100 else math.nan,
        "flood threads cores": f.get("flood_cores", 0),
        "tls resumed %": 100 * f.get("tls_resumed", 0) / max(f["started"], 1),
    }


def fmt(xs):
    if any(math.isnan(x) for x in xs):
        return "-"
    med = statistics.median(xs)
    lo, hi = min(xs), max(xs)
    digits = 0 if max(abs(lo), abs(hi)) >= 100 or all(x == int(x) for x in xs) else 2
    f = lambda x: f"{x:.{digits}f}"
    return f"{f(med)} [{f(lo)}-{f(hi)}]" if len(xs) > 1 else f(med)


def main():
    rows = defaultdict(list)
    every = []
    for run, name, st in steps():
        key = (name, st["class"], st["transport"], int(st["target_rate"]))
        rows[key].append(st)
        every.append((run, name, st))
    alone = [st for (name, _, _, _), sts in rows.items() if name == "baseline" for st in sts]
    base = (statistics.median(st["proxy_cores"] for st in alone), statistics.median(st["generator_cores"] for st in alone)) if alone else (0, 0)
    print(f"Players alone (the baseline set, {len(alone)} runs): relay {base[0]:.3f} cores, mbbench {base[1]:.3f} cores (medians).\n")
    cols = list(values(next(iter(rows.values()))[0], base).keys()) if rows else []
    print("| set | class | via | rate | runs | verdicts | " + " | ".join(cols) + " |")
    print("| --- " * (6 + len(cols)) + "|")
    for key in sorted(rows, key=lambda k: (k[0], k[1], k[3])):
        sts = rows[key]
        verdicts = ", ".join(f"{v}x{n}" for v, n in sorted(count(s["verdict"]["result"] for s in sts).items()))
        vals = [values(s, base) for s in sts]
        cells = [fmt([v[c] for v in vals]) for c in cols]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {len(sts)} | {verdicts} | " + " | ".join(cells) + " |")
    print("\nEvery step (run, set, class, via, rate: verdict and its reasons; players alive/started; counters that moved):\n")
    for run, name, st in every:
        reasons = "; ".join(st["verdict"].get("reasons") or [])
        counters = ", ".join(f"{c['series']} +{c['delta']:g}" for c in st["counters"] if "refused" in c["series"] or "attack" in c["series"])
        print(f"- r{run} {name} {st['class']} {st['transport']} {int(st['target_rate'])}: {st['verdict']['result']}"
              f"{' (' + reasons + ')' if reasons else ''}; players {st['legit_alive']}/{st['legit_players']},"
              f" {st['legit_broken']} broken, {st['legit_corrupted']} corrupted; flood {st['flood']['answered']}/"
              f"{st['flood']['closed_by_proxy']}/{st['flood']['held_to_end']}/{st['flood']['connect_failed'] + st['flood']['other']}"
              f" answered/closed/held/failed; {counters or 'no refusal counted'}")


def count(items):
    out = defaultdict(int)
    for i in items:
        out[i] += 1
    return out


def profile():
    reports = {os.path.basename(p)[:-5]: json.load(open(p)) for p in sorted(glob.glob(os.path.join(HERE, "profile", "*.json")))}
    idle = [st for r in reports.values() for st in r["steps"] if st["target_rate"] == 1]
    gen0 = statistics.median(st["generator_cores"] for st in idle)
    relay0 = statistics.median(st["proxy_cores"] for st in idle)
    print(f"Players alone (idle at 1/s, {len(idle)} steps): mbbench {gen0:.3f} cores, relay {relay0:.3f} cores (medians).\n")
    print("| run | class | via | rate | achieved/s | mbbench cores | relay cores | mbbench us/conn | relay us/conn | epoll threads us/conn | tls resumed | load (1 min) |")
    print("| --- " * 12 + "|")
    for name, r in reports.items():
        load = open(os.path.join(HERE, "profile", name + ".raw.txt")).readline().split("load ")[1].split()[0]
        for st in r["steps"]:
            if st["target_rate"] == 1:
                continue
            f = st["flood"]
            n = max(f["started"], 1)
            rate = n / f["window_s"]
            per = lambda cores, base: (cores - base) * 1e6 / rate
            thr = f"{f['flood_cpu_s'] * 1e6 / n:.1f}" if f.get("flood_cpu_s") else "-"
            print(f"| {name} | {st['class']} | {st['transport']} | {st['target_rate']:.0f} | {f['achieved_rate']:.0f} | {st['generator_cores']:.3f} |"
                  f" {st['proxy_cores']:.3f} | {per(st['generator_cores'], gen0):.1f} | {per(st['proxy_cores'], relay0):.1f} | {thr} |"
                  f" {f.get('tls_resumed', 0)} of {f['started']} | {load} |")


if __name__ == "__main__":
    sys.exit(profile() if sys.argv[1:] == ["--profile"] else main())
