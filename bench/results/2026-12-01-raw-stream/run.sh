#!/bin/sh
# The runs of 2026-12-01-raw-stream.md, from the repository's root, as root (network
# namespaces): WebSocket framing against the raw stream, per workload and transport, 16 pairs.
set -eu
R=bench/results/2026-12-01-raw-stream
for w in "modded:--profile modded --messages 25000" "small:--profile echo --payload 64 --messages 60000"; do
  name=${w%%:*}; flags=${w#*:}
  for t in ws wss; do
    out=$R/$name-$t
    { date -u +'# %Y-%m-%dT%H:%M:%SZ'; uptime; ps -eo pcpu,cls,ni,etime,comm --sort=-pcpu | head -12; } >"$out-raw.txt"
    bin/mbbench wire --serve bin/moonbridge --pairs 16 --connections 4 --window 8 --warmup 500 $flags --json \
      --path $t=$t --path "$t-raw=$t listener.raw_stream=true bridge.raw_stream=true" >"$out.json" 2>>"$out-raw.txt"
  done
done
