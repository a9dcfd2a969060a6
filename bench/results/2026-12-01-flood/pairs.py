# pairs.py: the per-pair table of the flood record's rule pairs (python3 pairs.py > pairs.md).
import json, statistics as st
def load(n):
    return json.load(open(n))['steps'][0]
print("# The rule's pairs: malformed handshakes at 5,000/s on tcp, status pings at 5,000/s on wss\n")
print("Computed from the pair*.json files of this folder by pairs.py. Every step is INVALID by the")
print("rule (the generator CPU-bound), so these ratios say what the proxy's CPU does with the")
print("defences on and off at the same offered rate, not what legitimate players see.\n")
for cls in ['malformed-tcp', 'ping-wss']:
    print(f"## {cls}\n")
    print("| pair | on: achieved/s, generator cores, proxy cores, legit/direct p99 ms, refused, verdict | off: the same | proxy cores on/off | legit p99 on/off |")
    print("| --- | --- | --- | --- | --- |")
    rc, rp = [], []
    for i in range(1, 9):
        a, b = load(f"pair{i}-{cls}-on.json"), load(f"pair{i}-{cls}-off.json")
        f = lambda s: f"{s['flood']['achieved_rate']:.0f}, {s['generator_cores']:.2f}, {s['proxy_cores']:.2f}, {s['legit_p99_ms']:.1f}/{s['direct_p99_ms']:.1f}, {s['refused']}, {s['verdict']['result']}"
        c, p = a['proxy_cores'] / b['proxy_cores'], a['legit_p99_ms'] / b['legit_p99_ms']
        rc.append(c); rp.append(p)
        print(f"| {i} | {f(a)} | {f(b)} | {c:.2f} | {p:.2f} |")
    print(f"\nmedian [min-max]: proxy cores on/off **{st.median(rc):.2f}** [{min(rc):.2f}-{max(rc):.2f}], legit p99 on/off {st.median(rp):.2f} [{min(rp):.2f}-{max(rp):.2f}]\n")
