#!/bin/bash
# The runs of the flood record (bench/results/2026-12-01-flood.md): `mbbench flood` against
# moonbridge (tcp and wss, defences on and off) and against HAProxy in TCP mode with a
# stick-table rate limit, each step 3 s of players alone, then 8 s of flood. About 28 minutes
# on 2 cores; a run that reaches STOP_AFTER minutes skips what is left. Raw output, one JSON
# report per run, the table (flood.md) and the plot (flood.svg) are written beside this script.
#
# Run from the repository's root after `make build` (bin/moonbridge, bin/mbbench) and
# `scripts/bootstrap.sh peers` (haproxy). Environment:
#   DEFENCES_ON   YAML merged into mbbench's moonbridge config for "on" (default: none, so
#                 moonbridge's defaults are the defences on)
#   DEFENCES_OFF  more YAML for "off", merged after the limits raised here (the off switches of
#                 defences this script does not know the keys of)
#   HAPROXY_RATE  the stick-table limit: connections per address in 10 s (default 20)
#   HAPROXY_PORT  HAProxy's port (25590); BACKEND the fake backend behind it (127.0.0.1:25566)
#   FLOOD_COMMON  the flags every run gets (default below; a smaller set checks the script)
set -euo pipefail
ulimit -n "$(ulimit -Hn)"
R=$(dirname "$0")
STOP_AFTER=${STOP_AFTER:-28}
HAPROXY_RATE=${HAPROXY_RATE:-20}
HAPROXY_PORT=${HAPROXY_PORT:-25590}
BACKEND=${BACKEND:-127.0.0.1:25566}
T0=$(date +%s)
MB=bin/mbbench
# --max-open fits the descriptors (this machine's hard limit is 20000): with a 4 s hold, idle and
# slow floods above 3000/s run out of open slots and are marked INVALID.
C=${FLOOD_COMMON:-"--duration 8s --warmup 3s --cooldown 1s --hold 4s --max-open 12000 --rates 1000,5000,0 --players 200 --direct-players 20 --json"}
TCP_CLASSES=idle,garbage,malformed,ping,offline,online,slowtls,slowws,badtoken
# idle, garbage and slowtls send their bytes before any TLS: over wss they would repeat tcp's.
WSS_CLASSES=malformed,ping,offline,online,slowws,badtoken
ONE24_CLASSES=malformed,ping,offline

load() { echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
late() { [ $(( ($(date +%s) - T0) / 60 )) -ge "$STOP_AFTER" ] && echo "skipped $1: past $STOP_AFTER minutes" >&2; }
# run NAME FLAGS...: one mbbench flood (FLAGS win over C), its JSON report and raw output
# beside this script.
run() {
  local n=$1; shift
  late "$n" && return 0
  load >"$R/$n.raw.txt"
  $MB flood $C "$@" >"$R/$n.json" 2>>"$R/$n.raw.txt" || echo "$n: mbbench flood failed (see $n.raw.txt)" >&2
  echo "$n done $(date -u +%H:%M:%S)"
}

# Off: every limit by address, by network and in total raised out of reach, the block list and
# the attack mode off, the login meter's rate and burst out of reach.
OFF="$R/defences-off.yml"
cat >"$OFF" <<'YML'
limits:
  max_connections: 1000000
  max_connections_per_ip: 1000000
  connection_rate_per_ip: 1000000
  connection_burst_per_ip: 1000000
  max_connections_per_network: 1000000
  connection_rate_per_network: 1000000
  connection_burst_per_network: 1000000
  status_rate_per_network: 1000000
  status_burst_per_network: 1000000
  login_rate_per_network: 1000000
  login_burst_per_network: 1000000
defence:
  block:
    after: 0
  attack_mode:
    enabled: false
login:
  meter:
    rate: 1000000
    burst: 1000000
YML
[ -n "${DEFENCES_OFF:-}" ] && cat "$DEFENCES_OFF" >>"$OFF"
ON=()
[ -n "${DEFENCES_ON:-}" ] && ON=(--config-extra "$DEFENCES_ON")

serve="--serve bin/moonbridge --backend 127.0.0.1:0"
run moonbridge-tcp-on $serve "${ON[@]}" --defences on --via tcp --classes $TCP_CLASSES
run moonbridge-tcp-off $serve --config-extra "$OFF" --defences off --via tcp --classes $TCP_CLASSES
run moonbridge-wss-on $serve "${ON[@]}" --defences on --via wss --classes $WSS_CLASSES
run moonbridge-wss-off $serve --config-extra "$OFF" --defences off --via wss --classes $WSS_CLASSES
run moonbridge-tcp-on-one24 $serve "${ON[@]}" --defences on-one-24 --via tcp --classes $ONE24_CLASSES --source-networks 1 --rates 1000,5000

# HAProxy: TCP, one thread, the stick-table limit as its documentation configures it; the
# players come from their own addresses (4 per /24 from 127.1.0.0), as they do to moonbridge,
# and meet the same table. It forwards to mbbench's fake backend at $BACKEND.
HA="$R/haproxy.cfg"
cat >"$HA" <<CFG
global
    nbthread 1
    maxconn 9000
    log stderr format short local0 warning
defaults
    mode tcp
    maxconn 9000
    timeout connect 5s
    timeout client 30s
    timeout server 5m
frontend minecraft
    bind 127.0.0.1:$HAPROXY_PORT
    stick-table type ip size 100k expire 30s store conn_rate(10s)
    tcp-request connection track-sc0 src
    tcp-request connection reject if { sc_conn_rate(0) gt $HAPROXY_RATE }
    default_backend fake
backend fake
    server fake $BACKEND
CFG
haproxy -db -f "$HA" >"$R/haproxy.log" 2>&1 &
HAPID=$!
trap 'kill $HAPID 2>/dev/null || true' EXIT
sleep 1
ext="--target 127.0.0.1:$HAPROXY_PORT --backend $BACKEND --target-pid $HAPID --proxy haproxy --log-level fatal"
run haproxy-tcp-stick-table $ext --defences stick-table --via tcp
run haproxy-tcp-stick-table-one24 $ext --defences stick-table-one-24 --via tcp --classes $ONE24_CLASSES --source-networks 1 --rates 1000,5000
kill $HAPID; wait $HAPID 2>/dev/null || true

# The rule's pairs: the two headline steps, defences on then off, 8 times (STOP_AFTER does not
# cut them short: pairs are only worth having whole).
for i in 1 2 3 4 5 6 7 8; do
  STOP_AFTER=1000 run "pair$i-malformed-tcp-on" $serve "${ON[@]}" --defences on --via tcp --classes malformed --rates 5000
  STOP_AFTER=1000 run "pair$i-malformed-tcp-off" $serve --config-extra "$OFF" --defences off --via tcp --classes malformed --rates 5000
  STOP_AFTER=1000 run "pair$i-ping-wss-on" $serve "${ON[@]}" --defences on --via wss --classes ping --rates 5000
  STOP_AFTER=1000 run "pair$i-ping-wss-off" $serve --config-extra "$OFF" --defences off --via wss --classes ping --rates 5000
done

$MB flood-report --svg "$R/flood.svg" $(ls "$R"/*.json | grep -v /pair) >"$R/flood.md"
echo "flood done $(date -u +%H:%M:%S), $(( ($(date +%s) - T0) / 60 )) minutes"
