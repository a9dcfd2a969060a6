#!/bin/bash
# The runs of bench/results/2026-11-30-ladder.md, as amended: play only, to 2000, until 12:10.
ulimit -n 65536
cd /work/main
R=bench/results/2026-11-30-ladder; mkdir -p $R
C="--window 10s --interval 2.5s --direct-players 100 --json --scenarios play --counts 100,250,500,1000,2000"
load() { echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
late() { [ "$(date -u +%H%M)" -ge 1210 ]; }
PEERS_DIR=/tmp/lb/peers bench/peers/peers.sh start >/tmp/lb/peers.txt; pid() { awk -v n=$1 '$1 == n {print $4}' /tmp/lb/peers.txt; }
mb() { n=$1; shift; late && return; load >$R/$n.raw.txt; bin/mbbench ladder --serve bin/moonbridge "$@" $C >$R/$n.json 2>>$R/$n.raw.txt; }
peer() { n=$1; shift; late && return; load >$R/$n.raw.txt; bin/mbbench ladder "$@" $C >$R/$n.json 2>>$R/$n.raw.txt; }
mb moonbridge-tcp --transport tcp
peer haproxy-tcp --relay haproxy --target 127.0.0.1:25580 --target-pid $(pid haproxy) --transport tcp
mb moonbridge-ws --transport ws
peer v2ray-ws --relay v2ray --target ws://127.0.0.1:25582/mc --target-pid $(pid v2ray-ws) --transport ws
mb moonbridge-wss-boringssl --transport wss --tls-provider boringssl
peer v2ray-wss --relay v2ray --target wss://127.0.0.1:25583/mc --target-pid $(pid v2ray-wss) --transport wss
mb moonbridge-wss-go --transport wss --tls-provider go
PEERS_DIR=/tmp/lb/peers bench/peers/peers.sh stop
bin/mbbench ladder-report --svg $R/ladder.svg $R/*.json >$R/ladder.md
echo "ladder done $(date -u +%H:%M:%S)"
