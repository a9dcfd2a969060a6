#!/bin/sh
# The runs of 2026-12-01-join-time-early-data-login-start.md, from the repository's root, as
# root (network namespaces): per transport, the path without early data (the baseline of the
# differences), with it, and raw TCP; the game client writes its handshake and Login Start as
# vanilla does, two writes (no --one-write). Each raw file opens with the time, the load
# averages and the busiest processes. `run.sh again` repeats them into again/ (the record's
# "Added after the runs").
set -eu
R=bench/results/2026-12-01-join-time-early-data-login-start
if [ "${1:-}" = again ]; then R=$R/again; mkdir -p "$R"; fi
for t in ws wss; do
  { date -u +'# %Y-%m-%dT%H:%M:%SZ'; uptime; ps -eo pcpu,cls,ni,etime,comm --sort=-pcpu | head -12; } >"$R/$t-raw.txt"
  bin/mbbench join --serve bin/moonbridge --rtts 20ms,50ms,100ms --rounds 8 --joins 5 --warmup 2 --json \
    --path $t=$t --path "$t-ed=$t listener.early_data=2KiB bridge.early_data=true" --path raw=tcp \
    >"$R/$t.json" 2>>"$R/$t-raw.txt"
done
