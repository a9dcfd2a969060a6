import json, statistics, os
order = ["echo-4", "m1-4", "m8-4", "burst-4", "echo-200", "m1-200", "m8-200", "burst-200"]
def ratios(f, a, b):
    d = json.load(open(f)); names = [v["name"] for v in d["variants"]]
    rb = d["ratios"][names.index(b)]  # b/first
    inv = lambda k: [1/x if x else float('inf') for x in rb[k]]
    c = inv("cpu_ns_per_frame")
    return statistics.median(c), min(c), max(c), statistics.median(inv("frames_per_s")), statistics.median(inv("p99_ms"))
def cell(r, bound=None): 
    return f"{r[0]:.3f} [{r[1]:.2f}-{r[2]:.2f}]"
print("#### 1. tcp and ws against HAProxy (loop / HAProxy, medians of 8 per-pair ratios)\n")
print("| workload | tcp CPU/frame loop/h1 | frames/s | p99 | tcp loop/h2 CPU | ws CPU/frame loop/h1 | frames/s | p99 |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for wl in order:
    t = ratios(f"{wl}-tcp.json", "loop", "h1"); t2 = ratios(f"{wl}-tcp.json", "loop", "h2"); w = ratios(f"{wl}-ws.json", "loop", "h1")
    print(f"| {wl} | {cell(t)} | {t[3]:.3f} | {t[4]:.3f} | {cell(t2)} | {cell(w)} | {w[3]:.3f} | {w[4]:.3f} |")
print("\n#### 2. wss with BoringSSL on the loop (boring / ws, boring / crypto/tls)\n")
print("| workload | CPU/frame boring/ws (<= 1.15) | frames/s | p99 | CPU/frame boring/go (<= 0.80) | frames/s | p99 |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for wl in order:
    a = ratios(f"{wl}-wss.json", "boring", "ws"); b = ratios(f"{wl}-wss.json", "boring", "go")
    print(f"| {wl} | {cell(a)} | {a[3]:.3f} | {a[4]:.3f} | {cell(b)} | {b[3]:.3f} | {b[4]:.3f} |")
print("\n#### 3. One loop against goroutines (loop / goroutines)\n")
print("| workload | tcp CPU/frame | frames/s | p99 | ws CPU/frame | frames/s | p99 |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for wl in order:
    t = ratios(f"{wl}-tcp.json", "loop", "goroutines"); w = ratios(f"{wl}-ws.json", "loop", "goroutines")
    print(f"| {wl} | {cell(t)} | {t[3]:.3f} | {t[4]:.3f} | {cell(w)} | {w[3]:.3f} | {w[4]:.3f} |")
