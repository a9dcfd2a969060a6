#!/bin/bash
# The measured runs of the flood generator record (bench/results/2026-12-04-flood-generator.md):
# `mbbench flood` against moonbridge (defences at their defaults) with 200 paced players (tcp,
# ws, wss; 4 per /24 from 127.1.0.0) and 20 direct players, floods spread over 4,096 /24s:
#   tcp    idle, garbage, malformed, ping, offline at 5,000/s, the epoll engine; malformed and
#          ping with the go engine (the old generator) beside it
#   ws     ping, offline at 5,000/s, the epoll engine
#   wss    ping, offline at 1,000 and 2,000/s, the go engine, TLS clients default and x25519
#          (full handshakes), then resume
#   hello  tlshello at 1,000 and 5,000/s to the same listener, the epoll engine
#   pinned moonbridge on CPU 1 and mbbench on CPU 0 (taskset): malformed tcp at 5,000/s (epoll),
#          ping wss at 1,000 and 2,000/s (go, default TLS client)
# Each set REPEATS times, one mbbench process a run; a run that would start past STOP_AT (UTC,
# HH:MM) is skipped. Raw output (a load line, mbbench's and moonbridge's stderr) and one JSON
# report per run beside this script; summarise.py makes the tables. The first set, baseline
# (idle at 1/s), is the players alone: the relay's and mbbench's CPU without a flood.
#
# Run from the repository's root after `make build mbbench` (bin/moonbridge with BoringSSL).
set -euo pipefail
ulimit -n "$(ulimit -Hn)"
R=$(dirname "$0")
REPEATS=${REPEATS:-3}
STOP_AT=${STOP_AT:-17:52}
MB=${MB:-bin/mbbench}
# Hold 2 s: an idle flood at 5,000/s holds 10,000 connections open, what mbbench's 20,000
# descriptors (the hard limit here) leave beside the players; the other classes end sooner.
# FLOOD_COMMON replaces these flags (a smaller set checks the script).
C=${FLOOD_COMMON:-"--serve bin/moonbridge --backend 127.0.0.1:0 --duration 8s --warmup 3s --cooldown 1s --hold 2s --max-open 12000 --players 200 --direct-players 20 --source-networks 4096 --json"}

# load: the load average, then what else used the CPU over half a second (top's second sample).
load() {
  echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  top -b -n2 -d0.5 -w 110 | awk '/^top -/{n++} n==2' | sed -n '7,13p' | sed 's/^/# /'
}
late() { [[ "$(date -u +%H:%M)" > "$STOP_AT" ]] && echo "skipped $1: past $STOP_AT" >&2; }
# run NAME [PREFIX...] -- FLAGS...: one mbbench flood, its JSON report and raw output here.
run() {
  local n=$1; shift
  local pre=()
  while [ "$1" != "--" ]; do pre+=("$1"); shift; done
  shift
  late "$n" && return 0
  load >"$R/$n.raw.txt"
  "${pre[@]}" $MB flood $C "$@" >"$R/$n.json" 2>>"$R/$n.raw.txt" || echo "$n: mbbench flood failed (see $n.raw.txt)" >&2
  echo "$n done $(date -u +%H:%M:%S)"
}

# The pinned relay: moonbridge started by mbbench through this wrapper runs on CPU 1 (exec keeps
# the PID mbbench measures).
PIN="$R/relay-on-cpu1.sh"

for i in $(seq "$REPEATS"); do run "r$i-baseline" -- --engine epoll --via tcp --classes idle --rates 1; done
for i in $(seq "$REPEATS"); do run "r$i-tcp-epoll" -- --engine epoll --via tcp --classes idle,garbage,malformed,ping,offline --rates 5000; done
for i in $(seq "$REPEATS"); do run "r$i-tcp-go" -- --engine go --via tcp --classes malformed,ping --rates 5000; done
for t in default x25519; do
  for i in $(seq "$REPEATS"); do run "r$i-wss-$t" -- --engine go --via wss --tls-client $t --classes ping,offline --rates 1000,2000; done
done
for i in $(seq "$REPEATS"); do run "r$i-ws-epoll" -- --engine epoll --via ws --classes ping,offline --rates 5000; done
for i in $(seq "$REPEATS"); do run "r$i-hello-epoll" -- --engine epoll --via wss --classes tlshello --rates 1000,5000; done
for i in $(seq "$REPEATS"); do run "r$i-wss-resume" -- --engine go --via wss --tls-client resume --classes ping,offline --rates 1000,2000; done
for i in $(seq "$REPEATS"); do
  run "r$i-pinned-tcp" taskset -c 0 -- --serve "$PIN" --gen-max-share 0.9 --engine epoll --via tcp --classes malformed --rates 5000
  run "r$i-pinned-wss" taskset -c 0 -- --serve "$PIN" --gen-max-share 0.9 --engine go --via wss --classes ping --rates 1000,2000
done
echo "runs done $(date -u +%H:%M:%S)"
