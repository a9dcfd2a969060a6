#!/bin/sh
# The runs of 2026-12-01-join-time-early-data.md, from the repository's root, as root (network
# namespaces): per transport, the path without early data (the baseline), with it, and raw TCP.
# Then the check: one join per path with the proxy's session lines (log level info).
# `run.sh one-write` runs only the check added after those runs (the login request in one write).
set -eu
R=bench/results/2026-12-01-join-time-early-data
common="--serve bin/moonbridge --rtts 20ms,50ms,100ms --rounds 16 --joins 5 --warmup 2 --json"
if [ "${1:-}" != one-write ]; then
for t in ws wss; do
  { date -u +'# %Y-%m-%dT%H:%M:%SZ'; uptime; ps -eo pcpu,cls,ni,etime,comm --sort=-pcpu | head -12; } >"$R/$t-raw.txt"
  bin/mbbench join $common --path $t=$t --path "$t-ed=$t listener.early_data=2KiB bridge.early_data=true" \
    --path raw=tcp >"$R/$t.json" 2>>"$R/$t-raw.txt"
done
bin/mbbench join --serve bin/moonbridge --rtts 50ms --rounds 1 --joins 1 --warmup 0 --serve-key log.level=info \
  --path ws=ws --path "ws-ed=ws listener.early_data=2KiB bridge.early_data=true" \
  --path wss=wss --path "wss-ed=wss listener.early_data=2KiB bridge.early_data=true" >"$R/check.md" 2>"$R/check-raw.txt"
fi

# Added after the runs above (the record's "Added after the runs"): the login request in one write.
if [ "${1:-}" = one-write ]; then
  for t in ws wss; do
    { date -u +'# %Y-%m-%dT%H:%M:%SZ'; uptime; ps -eo pcpu,cls,ni,etime,comm --sort=-pcpu | head -12; } >"$R/$t-one-write-raw.txt"
    bin/mbbench join --serve bin/moonbridge --rtts 20ms,50ms,100ms --rounds 8 --joins 5 --warmup 2 --json --one-write \
      --path $t=$t --path "$t-ed=$t listener.early_data=2KiB bridge.early_data=true" --path raw=tcp \
      >"$R/$t-one-write.json" 2>>"$R/$t-one-write-raw.txt"
  done
fi
