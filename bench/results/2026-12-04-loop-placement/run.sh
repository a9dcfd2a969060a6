#!/bin/bash
# Runs of bench/results/2026-12-04-loop-placement.md, in the rule's order.
#   MB  moonbridge built from the record's commit (make build: BoringSSL)
#   BB  mbbench built from the same commit
#   W   an empty work directory (configs, JSON, raw output land there)
set -u
: "${MB:?}" "${BB:?}" "${W:?}"
R=$(cd "$(dirname "$0")" && pwd)
cd "$W" || exit 1
load() { echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
if ss -ltn | grep -qE ':(25566|25580|25585) '; then echo "a port is taken:"; ss -ltnp | grep -E ':(25566|2558[05]) '; exit 1; fi

# Configs as in 2026-12-01-cores: per-address limits raised (every player is 127.0.0.1),
# attack mode off, log level warn. def: the default (loops 0, placement pack); l1: loops 1;
# lN: loops 0, placement spread (the default before this record).
cfg() { # name loops placement
  cat >"$1.yml" <<EOF
log: {level: warn}
relay: {data_path: loop, loops: $2, placement: $3}
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
EOF
}
cfg def 0 pack; cfg l1 1 pack; cfg lN 0 spread

hcfg() { sed -e "s/@BACKEND@/127.0.0.1:25566/" -e "s/nbthread 1/nbthread $2/" -e "s/25580/$1/" "$R/../../peers/haproxy.cfg" >"h$1.cfg"; }
hcfg 25580 1; hcfg 25585 2
haproxy -db -f h25580.cfg >h1.log 2>&1 & H1=$!
haproxy -db -f h25585.cfg >h2.log 2>&1 & H2=$!
sleep 1
trap 'kill $H1 $H2' EXIT

declare -A WL
WL[e4]="--profile echo --payload 1024 --window 8 --connections 4 --messages 400000 --warmup 10000"
WL[b4]="--profile echo --payload 32 --burst 32 --window 128 --connections 4 --messages 600000 --warmup 20000"
WL[e200]="--profile echo --payload 1024 --window 8 --connections 200 --messages 8000 --warmup 200"
WL[b200]="--profile echo --payload 32 --burst 32 --window 128 --connections 200 --messages 10000 --warmup 400"

s() { echo "--serve-arg=--config --serve-arg=$1.yml --serve $MB"; }
ab() { # name common-args variants...
  local name=$1 common=$2; shift 2
  echo "### $name $(load)" | tee -a raw.txt
  echo "# mbbench ab --pairs 8 --json $* -- $common" >>raw.txt
  "$BB" ab --pairs 8 --json "$@" -- $common >"$name.json" 2>"$name.err"
  echo "exit $?" >>raw.txt; grep -v '"session ended"' "$name.err" | grep -v '^{"level' >>raw.txt
}
MB3=(--variant "def=$(s def)" --variant "l1=$(s l1)" --variant "lN=$(s lN)")

# 1. Closed-loop workloads over tcp, HAProxy beside.
for w in e4 b4 e200 b200; do
  ab "$w-tcp" "--transport tcp --repeats 1 --direct=false ${WL[$w]}" "${MB3[@]}" \
    --variant "h1=--target 127.0.0.1:25580 --target-pid $H1" --variant "h2=--target 127.0.0.1:25585 --target-pid $H2"
done
# 2. The same over ws and wss (BoringSSL), our three only.
for tr in ws wss; do
  for w in e4 b4 b200; do
    ab "$w-$tr" "--transport $tr --repeats 1 --direct=false ${WL[$w]}" "${MB3[@]}"
  done
done
echo "### closed-loop done $(load)" | tee -a raw.txt

# 3. Paced players (the ladder's play profile), 8 pairs, order alternating by pair.
step() { # variant count pair
  echo "### ladder $1 $2 pair $3 $(load)" | tee -a ladder-raw.txt
  "$BB" ladder --scenarios play --counts "$2" --window 10s --interval 2.5s --direct-players 100 \
    --gen-max-share 1 --serve "$MB" --serve-arg=--config --serve-arg="$1.yml" >"ladder-$1-$2-$3.txt" 2>&1
  echo "exit $?" >>ladder-raw.txt
  grep -v '"session ended"' "ladder-$1-$2-$3.txt" | grep -v '^{"level' >>ladder-raw.txt
}
order() { # pair variants... : the variants, rotated by pair
  local p=$1; shift; local v=("$@") n=$#
  for i in $(seq 0 $((n - 1))); do echo "${v[$(((i + p) % n))]}"; done
}
for pair in 1 2 3 4 5 6 7 8; do
  for v in $(order "$pair" def l1 lN); do step "$v" 500 "$pair"; done
done
for count in 250 1000; do
  for pair in 1 2 3 4 5 6 7 8; do
    for v in $(order "$pair" def l1); do step "$v" "$count" "$pair"; done
  done
done
echo "### done $(load)" | tee -a ladder-raw.txt
