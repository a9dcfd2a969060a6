#!/bin/bash
# Runs of bench/results/2026-12-04-loop-placement-quiet.md, in the rule's order: the four busy
# workloads of 2026-12-04-loop-placement.md, pack (def) against spread (lN), on a quiet machine.
#   MB  moonbridge built from the record's commit (make build: BoringSSL)
#   BB  mbbench built from the same commit
#   W   an empty work directory (configs, JSON, raw output land there)
set -u
: "${MB:?}" "${BB:?}" "${W:?}"
cd "$W" || exit 1
load() { echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }

# Configs as in 2026-12-04-loop-placement (per-address limits raised, attack mode off).
cfg() { # name placement [extra yaml]
  cat >"$1.yml" <<CFG
log: {level: warn}
relay: {data_path: loop, loops: 0, placement: $2}
defence: {attack_mode: {enabled: false}}
limits:
  max_connections: 100000
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
${3:-}
CFG
}
cfg def pack; cfg lN spread

E200="--profile echo --payload 1024 --window 8 --connections 200 --messages 8000 --warmup 200"
B200="--profile echo --payload 32 --burst 32 --window 128 --connections 200 --messages 10000 --warmup 400"
s() { echo "--serve-arg=--config --serve-arg=$1.yml --serve $MB"; }
ab() { # name common-args
  echo "### $1 $(load)" | tee -a raw.txt
  echo "# mbbench ab --pairs 8 --json def lN -- $2" >>raw.txt
  "$BB" ab --pairs 8 --json --variant "def=$(s def)" --variant "lN=$(s lN)" -- $2 >"$1.json" 2>"$1.err"
  echo "exit $?" >>raw.txt; grep -v '"session ended"' "$1.err" | grep -v '^{"level' >>raw.txt
}
ab e200-tcp "--transport tcp --repeats 1 --direct=false $E200"
ab b200-tcp "--transport tcp --repeats 1 --direct=false $B200"
ab b200-ws "--transport ws --repeats 1 --direct=false $B200"
ab b200-wss "--transport wss --repeats 1 --direct=false $B200"
echo "### series done $(load)" | tee -a raw.txt

# Not part of the decision: a CPU profile of def on b200 over wss, taken 5 s into one run,
# and the loops' metrics at the end of it.
cfg prof pack "admin: {listen: 127.0.0.1:19199, pprof: true}"
"$BB" run --serve "$MB" --serve-arg=--config --serve-arg=prof.yml --transport wss --repeats 1 \
  --direct=false $B200 --messages 40000 >prof-run.txt 2>&1 &
RUN=$!
sleep 5
curl -s -o b200-wss-def.pprof "http://127.0.0.1:19199/debug/pprof/profile?seconds=10"
curl -s http://127.0.0.1:19199/metrics | grep -E '^moonbridge_loop_' >prof-loops.txt
wait $RUN
echo "### profile done $(load)" | tee -a raw.txt
