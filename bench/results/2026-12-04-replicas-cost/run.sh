#!/bin/bash
# Runs of bench/results/2026-12-04-replicas-cost.md, in the rule's order.
#   MB  moonbridge built from the record's commit (pure Go: CGO_ENABLED=0 go build ./cmd/moonbridge)
#   BB  mbbench built from the same commit (go build ./cmd/mbbench)
#   W   an empty work directory (configs, JSON, raw output land there)
#   PAIRS  pairs of the series (8 unless given: 1 for a smoke test that is not the record)
set -u
: "${MB:?}" "${BB:?}" "${W:?}"
PAIRS=${PAIRS:-8}
cd "$W" || exit 1
load() { echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
PORTS=':(25566|26379|2559[123]|2569[123]) '
if ss -ltn | grep -qE "$PORTS"; then echo "a port is taken:"; ss -ltnp | grep -E "$PORTS"; exit 1; fi

# One Redis on loopback, nothing saved, for the whole series.
redis-server --port 26379 --bind 127.0.0.1 --save "" --appendonly no --daemonize no --loglevel warning >redis.log 2>&1 &
RP=$!
sleep 1
redis_cpu() { awk '{print $14 + $15}' "/proc/$RP/stat"; } # utime + stime, clock ticks
# The load average and Redis' CPU every 2 s, to read each run's start from (ab runs them all).
while sleep 2; do echo "$(load) redis cpu ticks $(redis_cpu)"; done >load.txt &
LP=$!
trap 'kill $LP $RP' EXIT

# Configs: mbbench's upgrades config (limits raised: every worker is 127.0.0.1; log level warn),
# attack mode off (its default thresholds would start it at this rate of new connections and
# change what is measured), one route to mbbench's fake backend, the admin port for /metrics.
#   local        max_players 1000000, no replicas section: every count local
#   redis        the same with replicas on the loopback Redis (defaults: join_wait 50ms,
#                heartbeat 1s): each join asks Redis for a seat
#   redis-nocap  replicas on, the route without max_players: no Redis call in a join; at
#                accept only the caches (block list, shared rates counted locally and flushed)
# Each runs as one relay for the whole series, measured through mbbench's --target (with
# --serve, mbbench passes --backend, which replaces a config's routes and so its max_players).
cfg() { # name port max_players replicas(true|false)
  {
    cat <<YML
log: {level: warn}
admin: {listen: "127.0.0.1:$(($2 + 100))"}
listeners:
  - listen: 127.0.0.1:$2
    protocols: [minecraft]
defence: {attack_mode: {enabled: false}}
limits:
  max_connections: 9000
  max_connections_per_ip: 100000
  connection_rate_per_ip: 1000000
  connection_burst_per_ip: 1000000
  max_connections_per_network: 100000
  connection_rate_per_network: 1000000
  connection_burst_per_network: 1000000
  status_rate_per_network: 1000000
  status_burst_per_network: 1000000
  login_rate_per_network: 1000000
  login_burst_per_network: 1000000
routes:
  - name: bench
    hosts: ["*"]
    backends: ["127.0.0.1:25566"]
YML
    [ "$3" -gt 0 ] && echo "    max_players: $3"
    [ "$4" = true ] && printf 'replicas:\n  enabled: true\n  address: 127.0.0.1:26379\n  key_prefix: "bench-%s:"\n' "$1"
  } >"$1.yml"
}
cfg local 25591 1000000 false; cfg redis 25592 1000000 true; cfg redis-nocap 25593 0 true
declare -A PID
for c in local redis redis-nocap; do
  "$MB" check-config "$c.yml" >>check.txt 2>&1 || { echo "check-config $c failed"; cat check.txt; exit 1; }
  "$MB" serve --config "$c.yml" >"relay-$c.log" 2>&1 &
  PID[$c]=$!
done
trap 'kill $LP $RP ${PID[local]} ${PID[redis]} ${PID[redis-nocap]}' EXIT
sleep 2
v() { echo "$1=--target 127.0.0.1:$2 --target-pid ${PID[$1]}"; }
COMMON="--mode upgrades --transport tcp --connections 4 --warmup-duration 2s --duration 10s --repeats 1 --direct=false"

echo "### series $(load) redis cpu ticks $(redis_cpu)" | tee -a raw.txt
echo "# mbbench ab --pairs $PAIRS --json (local, redis, redis-nocap) -- $COMMON" >>raw.txt
"$BB" ab --pairs "$PAIRS" --json --variant "$(v local 25591)" --variant "$(v redis 25592)" \
  --variant "$(v redis-nocap 25593)" -- $COMMON >ab.json 2>ab.err
echo "exit $?" >>raw.txt
grep -v '^{"level' ab.err >>raw.txt
echo "### done $(load) redis cpu ticks $(redis_cpu) (ticks of $(getconf CLK_TCK) a second)" | tee -a raw.txt
for c in local:25691 redis:25692 redis-nocap:25693; do
  curl -s "http://127.0.0.1:${c#*:}/metrics" | grep -E '^moonbridge_(replicas_|refused|sessions_total|players)' >"metrics-${c%:*}.txt"
done
redis-cli -p 26379 INFO commandstats >redis-commandstats.txt
