#!/bin/bash
# The second part of the flood record, after run.sh, on the build with the login meter's early
# refusal (Meter.Check at Login Start) and the accept log's rate limit: wss floods at rates the
# generator can reach on this machine (run.sh's wss steps at 1000/s and above were all
# generator-bound), the online class again, and HAProxy from one /24 (run.sh ran out of time
# for it). Same step shape as run.sh. Run from the repository's root after `make build mbbench`.
set -euo pipefail
ulimit -n "$(ulimit -Hn)"
R=$(dirname "$0")
MB=bin/mbbench
HAPROXY_PORT=${HAPROXY_PORT:-25590}
BACKEND=${BACKEND:-127.0.0.1:25566}
C="--duration 8s --warmup 3s --cooldown 1s --hold 4s --max-open 12000 --players 200 --direct-players 20 --json"
run() {
  local n=$1; shift
  echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" >"$R/$n.raw.txt"
  $MB flood $C "$@" >"$R/$n.json" 2>>"$R/$n.raw.txt" || echo "$n: mbbench flood failed (see $n.raw.txt)" >&2
  echo "$n done $(date -u +%H:%M:%S)"
}
serve="--serve bin/moonbridge --backend 127.0.0.1:0"
WSS_CLASSES=malformed,ping,offline,online,slowws,badtoken
run run2-moonbridge-wss-on $serve --defences on --via wss --classes $WSS_CLASSES --rates 250,500
run run2-moonbridge-wss-off $serve --config-extra "$R/defences-off.yml" --defences off --via wss --classes $WSS_CLASSES --rates 250,500
run run2-moonbridge-tcp-on-online $serve --defences on --via tcp --classes online --rates 1000,5000
haproxy -db -f "$R/haproxy.cfg" >"$R/run2-haproxy.log" 2>&1 &
HAPID=$!
trap 'kill $HAPID 2>/dev/null || true' EXIT
sleep 1
run run2-haproxy-tcp-stick-table-one24 --target 127.0.0.1:$HAPROXY_PORT --backend $BACKEND --target-pid $HAPID --proxy haproxy --log-level fatal \
  --defences stick-table-one-24 --via tcp --classes malformed,ping,offline --source-networks 1 --rates 1000,5000
