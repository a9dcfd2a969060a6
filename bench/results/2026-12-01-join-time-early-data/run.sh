#!/bin/sh
# The runs of 2026-12-01-join-time-early-data.md, from the repository's root, as root (network
# namespaces): per transport, the path without early data (the baseline), with it, and raw TCP.
# Then the check: one join per path with the proxy's session lines (log level info).
set -eu
R=bench/results/2026-12-01-join-time-early-data
common="--serve bin/moonbridge --rtts 20ms,50ms,100ms --rounds 16 --joins 5 --warmup 2 --json"
for t in ws wss; do
  { date -u +'# %Y-%m-%dT%H:%M:%SZ'; uptime; ps -eo pcpu,cls,ni,etime,comm --sort=-pcpu | head -12; } >"$R/$t-raw.txt"
  bin/mbbench join $common --path $t=$t --path "$t-ed=$t listener.early_data=2KiB bridge.early_data=true" \
    --path raw=tcp >"$R/$t.json" 2>>"$R/$t-raw.txt"
done
bin/mbbench join --serve bin/moonbridge --rtts 50ms --rounds 1 --joins 1 --warmup 0 --serve-key log.level=info \
  --path ws=ws --path "ws-ed=ws listener.early_data=2KiB bridge.early_data=true" \
  --path wss=wss --path "wss-ed=wss listener.early_data=2KiB bridge.early_data=true" >"$R/check.md" 2>"$R/check-raw.txt"
