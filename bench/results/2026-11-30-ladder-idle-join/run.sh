#!/bin/bash
# The runs of bench/results/2026-11-30-ladder-idle-join.md: idle then join, every relay, until 14:00 UTC.
cd /tmp/lb/lj
timeout 900 /tmp/lb/raw/run.sh
timeout 600 /tmp/lb/if/run.sh
if ss -ltn | grep -qE ':(2558[0-5]|25566) '; then echo "a port is taken:"; ss -ltnp | grep -E ':(2558[0-5]|25566) '; exit 1; fi
MB=/tmp/lb/mb-4cb1a26; BB=/tmp/lb/mbbench-new
C="--window 10s --interval 2.5s --direct-players 100 --json --timeout 8m"
IDLE="--scenarios idle --counts 100,250,500,1000,2000,4000"
JOIN="--scenarios join --counts 100,250,500,1000,2000"
load() { echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
late() { [ "$(date -u +%H%M)" -ge 1425 ]; }
peers() { PEERS_DIR=/tmp/lb/lj/peers /work/main/bench/peers/peers.sh "$@"; }
pid() { awk -v n=$1 '$1 == n {print $4}' peers.txt; }
mb() { n=$1; shift; for sc in IDLE JOIN; do late && return; o=$n-${sc,,}; load >$o.raw.txt; $BB ladder --serve $MB "$@" ${!sc} $C >$o.json 2>>$o.raw.txt; done; }
peer() { n=$1 p=$2; shift 2; for sc in IDLE JOIN; do late && return; peers start >peers.txt; o=$n-${sc,,}; load >$o.raw.txt; $BB ladder "$@" --target-pid $(pid $p) ${!sc} $C >$o.json 2>>$o.raw.txt; peers stop >/dev/null; done; }
mb moonbridge-tcp --transport tcp
peer haproxy-tcp haproxy --relay haproxy --target 127.0.0.1:25580 --transport tcp
mb moonbridge-ws --transport ws
peer v2ray-ws v2ray-ws --relay v2ray --target ws://127.0.0.1:25582/mc --transport ws
mb moonbridge-wss-boringssl --transport wss --tls-provider boringssl
peer v2ray-wss v2ray-wss --relay v2ray --target wss://127.0.0.1:25583/mc --transport wss
mb moonbridge-wss-go --transport wss --tls-provider go
echo "ladder done $(date -u +%H:%M:%S)"
