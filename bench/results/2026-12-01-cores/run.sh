#!/bin/bash
# Runs of bench/results/2026-12-01-cores.md, in the rule's order.
#   MB  moonbridge built from 9f1a429 with experiment-knobs.patch (make build)
#   BB  mbbench built from the record's commit
#   W   an empty work directory (configs, wrappers, JSON, raw output land there)
set -u
: "${MB:?}" "${BB:?}" "${W:?}"
R=$(cd "$(dirname "$0")" && pwd)
cd "$W" || exit 1
load() { echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
if ss -ltn | grep -qE ':(25566|25580|25581|25585|25586) '; then echo "a port is taken:"; ss -ltnp | grep -E ':(25566|2558[0156]) '; exit 1; fi

# Configs: per-address limits raised (every player is 127.0.0.1), attack mode off (2,000
# logins at once would start it), log level warn; loops 1, 0 (one per core) or 2.
for n in 1 0 2; do
  cat >"loops$n.yml" <<EOF
log: {level: warn}
relay: {data_path: loop, loops: $n}
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
done
# Relay wrappers: exec keeps the PID mbbench measures.
wrap() { printf '#!/bin/sh\n%s exec %s "$@"\n' "$2" "$MB" >"mb-$1"; chmod +x "mb-$1"; }
wrap plain ""
wrap lock "MB_LOOP_LOCK=1"
wrap aff "MB_LOOP_LOCK=1 MB_LOOP_AFFINITY=1"
wrap spin "MB_LOOP_SPIN_US=50"
printf '#!/bin/sh\nexec taskset -c 1 %s "$@"\n' "$MB" >mb-pin1; chmod +x mb-pin1

# HAProxy: nbthread 1 and 2 on both cores; the same pinned to CPU 1.
hcfg() { sed -e "s/@BACKEND@/127.0.0.1:25566/" -e "s/nbthread 1/nbthread $2/" -e "s/25580/$1/" "$R/../../peers/haproxy.cfg" >"h$1.cfg"; }
hcfg 25580 1; hcfg 25585 2; hcfg 25581 1; hcfg 25586 2
haproxy -db -f h25580.cfg >h1.log 2>&1 & H1=$!
haproxy -db -f h25585.cfg >h2.log 2>&1 & H2=$!
taskset -c 1 haproxy -db -f h25581.cfg >p1.log 2>&1 & P1=$!
taskset -c 1 haproxy -db -f h25586.cfg >p2.log 2>&1 & P2=$!
sleep 1
trap 'kill $H1 $H2 $P1 $P2' EXIT

declare -A WL
WL[echo-4]="--profile echo --payload 1024 --window 8 --connections 4 --messages 50000 --warmup 2000"
WL[m8-4]="--profile modded --window 8 --connections 4 --messages 20000 --warmup 500"
WL[echo-200]="--profile echo --payload 1024 --window 8 --connections 200 --messages 1000 --warmup 40"
WL[m8-200]="--profile modded --window 8 --connections 200 --messages 400 --warmup 20"
WL[echo-2000]="--profile echo --payload 1024 --window 8 --connections 2000 --messages 40 --warmup 10"
WL[m8-2000]="--profile modded --window 8 --connections 2000 --messages 60 --warmup 10"

s() { echo "--serve-arg=--config --serve-arg=$1 --serve ./mb-$2"; } # config wrapper
ab() { # name prefix(taskset or "") common-args variants...
  local name=$1 pre=$2 common=$3; shift 3
  echo "### $name $(load)" | tee -a raw.txt
  echo "# $pre mbbench ab --pairs 8 --json $* -- $common" >>raw.txt
  $pre "$BB" ab --pairs 8 --json "$@" -- $common >"$name.json" 2>"$name.err"
  echo "exit $?" >>raw.txt; grep -v '"session ended"' "$name.err" | grep -v '^{"level' >>raw.txt
}
T="--transport tcp --repeats 1 --direct=false"

# 1. Unpinned: relay, HAProxy and generator share both cores.
for w in echo-4 m8-4; do
  ab "$w-tcp" "" "$T ${WL[$w]}" --variant "l1=$(s loops1.yml plain)" --variant "lN=$(s loops0.yml plain)" \
    --variant "lock=$(s loops0.yml lock)" --variant "aff=$(s loops0.yml aff)" --variant "spin=$(s loops0.yml spin)" \
    --variant "h1=--target 127.0.0.1:25580 --target-pid $H1" --variant "h2=--target 127.0.0.1:25585 --target-pid $H2"
done
for w in echo-200 m8-200; do
  ab "$w-tcp" "" "$T ${WL[$w]}" --variant "l1=$(s loops1.yml plain)" --variant "lN=$(s loops0.yml plain)" \
    --variant "lock=$(s loops0.yml lock)" \
    --variant "h1=--target 127.0.0.1:25580 --target-pid $H1" --variant "h2=--target 127.0.0.1:25585 --target-pid $H2"
done
for w in echo-2000 m8-2000; do
  ab "$w-tcp" "" "$T ${WL[$w]}" --variant "l1=$(s loops1.yml plain)" --variant "lN=$(s loops0.yml plain)" \
    --variant "h1=--target 127.0.0.1:25580 --target-pid $H1" --variant "h2=--target 127.0.0.1:25585 --target-pid $H2"
done
ab "echo-200-ws" "" "--transport ws --repeats 1 --direct=false ${WL[echo-200]}" \
  --variant "l1=$(s loops1.yml plain)" --variant "lN=$(s loops0.yml plain)"

# 2. Pinned: generator (mbbench and its fake backend) on CPU 0, relay on CPU 1 (GOMAXPROCS is
# then 1, so the second loop is asked for by loops: 2).
for w in echo-4 echo-200 m8-2000; do
  ab "$w-tcp-pinned" "taskset -c 0" "$T ${WL[$w]}" --variant "l1=$(s loops1.yml pin1)" --variant "l2=$(s loops2.yml pin1)" \
    --variant "h1=--target 127.0.0.1:25581 --target-pid $P1" --variant "h2=--target 127.0.0.1:25586 --target-pid $P2"
done

# 3. Accept and the handshake phase: sessions opened and closed by 8 workers.
for tr in ws wss; do
  ab "upgrades-$tr" "" "--mode upgrades --transport $tr --connections 8 --duration 3s --warmup-duration 1s --repeats 1 --direct=false" \
    --variant "l1=$(s loops1.yml plain)" --variant "lN=$(s loops0.yml plain)"
done
echo "### done $(load)" | tee -a raw.txt
