import json, statistics, re
wl = ["m1", "m8", "echo", "burst"]
def fmt(s, p): return f"{s['median']:.{p}f} [{s['min']:.{p}f}-{s['max']:.{p}f}]"
print("| workload | variant | CPU ns/frame | frames/s | p99 ms |")
print("| --- | --- | ---: | ---: | ---: |")
rows = []
for w in wl:
    d = json.load(open(f"{w}.json")); names = [v["name"] for v in d["variants"]]
    for n, s in zip(names, d["summary"]):
        print(f"| {w} | {n} | {fmt(s['cpu_ns_per_frame'],0)} | {fmt(s['frames_per_s'],0)} | {fmt(s['p99_ms'],3)} |")
    for n, r in zip(names[1:], d["ratios"][1:]):
        inv = lambda k: [1/x for x in r[k]]
        c = inv("cpu_ns_per_frame")
        rows.append((w, f"aead/{n}", c, statistics.median(inv("frames_per_s")), statistics.median(inv("p99_ms"))))
print()
print("| workload | ratio | CPU per pair | CPU median | frames/s | p99 |")
print("| --- | --- | --- | ---: | ---: | ---: |")
for w, n, c, f, p in rows:
    print(f"| {w} | {n} | {', '.join(f'{x:.2f}' for x in c)} | **{statistics.median(c):.3f}** | {f:.3f} | {p:.3f} |")
