#!/bin/sh
# The runs of 2026-12-01-join-time-baseline.md, from the repository's root, as root (network
# namespaces): run A with the proxy's default TLS provider, run B with Go's. Each writes its
# JSON report and its raw output (the machine's busiest processes first, then mbbench's stderr).
set -eu
R=bench/results/2026-12-01-join-time-baseline
common="--serve bin/moonbridge --rtts 20ms,50ms,100ms --rounds 16 --joins 5 --warmup 2 --json"
run() {
  name=$1; shift
  { date -u +'# %Y-%m-%dT%H:%M:%SZ'; uptime; ps -eo pcpu,cls,ni,etime,comm --sort=-pcpu | head -12; } >"$R/$name-raw.txt"
  bin/mbbench join $common "$@" >"$R/$name.json" 2>>"$R/$name-raw.txt"
}
run run-a
run run-b --tls-provider go
