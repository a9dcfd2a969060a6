#!/usr/bin/env python3
"""Tables of bench/results/2026-12-04-idle-session-memory.md from raw files: bytes per idle session."""
import re, sys, statistics
for path in sys.argv[1:]:
    rows, cur = {}, None
    for line in open(path):
        m = re.match(r'### idle (\S+) (\S+) round (\d)', line)
        if m:
            cur = (m.group(1), m.group(2))
        m = re.match(r'idle sessions: \d+, proxy RSS \d+ -> \d+ KiB, (\d+) bytes per session', line)
        if m and cur:
            rows.setdefault(cur, []).append(int(m.group(1)))
    print(path)
    variants = []
    for t, v in rows:
        if v not in variants:
            variants.append(v)
    print('| transport | ' + ' | '.join(f'{v}: rounds | median [min-max]' for v in variants) + ' |')
    print('| --- |' + ' --- | ---: |' * len(variants))
    for t in ('tcp', 'ws', 'wss'):
        cells = []
        for v in variants:
            r = rows.get((t, v), [])
            cells.append(', '.join(map(str, r)) + ' | ' + (f'**{statistics.median(r):.0f}** [{min(r)}-{max(r)}]' if r else '-'))
        print(f'| {t} | ' + ' | '.join(cells) + ' |')
