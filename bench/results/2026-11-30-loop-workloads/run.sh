#!/bin/bash
# Runs of bench/results/2026-11-30-loop-workloads.md, in the rule's order.
ulimit -n 65536
cd /tmp/lb/w
MB=/tmp/lb/mb-4cb1a26; BB=/tmp/lb/mbbench-new
load() { echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
if ss -ltn | grep -qE ':(25580|25585|25566) '; then echo "a port is taken:"; ss -ltnp | grep -E ':(25580|25585|25566) '; exit 1; fi
haproxy -db -f /tmp/lb/h1.cfg >h1.log 2>&1 & H1=$!
haproxy -db -f /tmp/lb/h2.cfg >h2.log 2>&1 & H2=$!
sleep 1
trap 'kill $H1 $H2' EXIT
declare -A W
W[echo-4]="--profile echo --payload 1024 --window 8 --connections 4 --messages 50000 --warmup 2000"
W[echo-200]="--profile echo --payload 1024 --window 8 --connections 200 --messages 1000 --warmup 40"
W[m1-4]="--profile modded --window 1 --connections 4 --messages 10000 --warmup 500"
W[m1-200]="--profile modded --window 1 --connections 200 --messages 200 --warmup 20"
W[m8-4]="--profile modded --window 8 --connections 4 --messages 20000 --warmup 500"
W[m8-200]="--profile modded --window 8 --connections 200 --messages 400 --warmup 20"
W[burst-4]="--profile echo --payload 32 --window 4 --burst 32 --connections 4 --messages 48000 --warmup 1024"
W[burst-200]="--profile echo --payload 32 --window 4 --burst 32 --connections 200 --messages 960 --warmup 64"
S="--serve $MB --serve-arg=--config --serve-arg"
ab() { # name transport variants...
  local name=$1 tr=$2; shift 2
  echo "### $name $(load)" | tee -a raw.txt
  echo "# $BB ab --pairs 8 --json $* -- --transport $tr --repeats 2 --direct=false ${W[$WL]}" >>raw.txt
  $BB ab --pairs 8 --json "$@" -- --transport $tr --repeats 2 --direct=false ${W[$WL]} >$name.json 2>$name.err
  echo "exit $?" >>raw.txt; grep -v '"session ended"' $name.err | grep -v '^{"level"' >>raw.txt
}
for WL in echo-4 m1-4 m8-4 burst-4 echo-200 m1-200 m8-200 burst-200; do
  ab $WL-tcp tcp --variant "loop=$S=loop1.yml" --variant "goroutines=$S=gor.yml" \
    --variant "h1=--target 127.0.0.1:25580 --target-pid $H1" --variant "h2=--target 127.0.0.1:25585 --target-pid $H2"
  ab $WL-ws ws --variant "loop=$S=loop1.yml" --variant "goroutines=$S=gor.yml" \
    --variant "h1=--target 127.0.0.1:25580 --target-pid $H1 --transport tcp"
  ab $WL-wss wss --variant "boring=$S=loop1.yml --tls-provider boringssl" --variant "ws=$S=loop1.yml --transport ws" \
    --variant "go=$S=loop1.yml --tls-provider go"
done
# Idle memory, criterion 4.
gsample() { while :; do echo "$(date -u +%H:%M:%S.%N | cut -c1-12) $(curl -s --max-time 0.4 http://127.0.0.1:25590/metrics | awk '$1=="go_goroutines"{print $2}')"; sleep 0.5; done; }
idle() { # label args...
  local label=$1; shift
  echo "### idle $label round $round $(load)" | tee -a idle.txt
  gsample >>idle.txt & G=$!
  $BB run "$@" --profile modded --idle 2000 --idle-settle 3s 2>&1 | grep -v '"session ended"' | grep -v '^{"level"' >>idle.txt
  kill $G; wait $G 2>/dev/null
}
for round in 1 2 3; do
  set -- tcp ws boring go h1
  for i in $(seq $((round-1))); do set -- "${@:2}" "$1"; done
  for v in "$@"; do case $v in
    tcp) idle tcp $S=loop1-admin.yml --transport tcp;;
    ws) idle ws $S=loop1-admin.yml --transport ws;;
    boring) idle wss-boringssl $S=loop1-admin.yml --transport wss --tls-provider boringssl;;
    go) idle wss-go $S=loop1-admin.yml --transport wss --tls-provider go;;
    h1) idle haproxy-h1 --target 127.0.0.1:25580 --target-pid $H1 --transport tcp;;
  esac; done
done
echo "### done $(load)" | tee -a raw.txt
