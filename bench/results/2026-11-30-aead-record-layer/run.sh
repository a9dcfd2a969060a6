#!/bin/bash
# Runs of bench/results/2026-11-30-aead-record-layer.md.
cd /tmp/lb/aead
BB=/tmp/lb/mbbench-new; MB=/tmp/lb/mb-4ef1393
S="--serve $MB --serve-arg=--config --serve-arg=loop1.yml"
ab() { local name=$1; shift
  echo "### $name $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" >>raw.txt
  echo "# $BB ab --pairs 8 --json [variants aead ssl go ws] -- --transport wss --connections 4 --repeats 2 --direct=false $*" >>raw.txt
  $BB ab --pairs 8 --json --variant "aead=$S --tls-provider boringssl --serve-arg=--tls-record-layer=aead" \
    --variant "ssl=$S --tls-provider boringssl --serve-arg=--tls-record-layer=boringssl-ssl" \
    --variant "go=$S --tls-provider go" --variant "ws=$S --transport ws" \
    -- --transport wss --connections 4 --repeats 2 --direct=false "$@" >$name.json 2>$name.err
  echo "exit $?" >>raw.txt; grep -v '"session ended"' $name.err | grep -v '^{"level"' >>raw.txt
}
ab m1 --profile modded --window 1 --messages 10000 --warmup 500
ab m8 --profile modded --window 8 --messages 20000 --warmup 500
ab echo --profile echo --payload 1024 --window 8 --messages 50000 --warmup 2000
ab burst --profile echo --payload 32 --window 4 --burst 32 --messages 48000 --warmup 1024
echo "### micro $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" >>raw.txt
cd /work/main && git stash list >/dev/null
cd /tmp/lb/aead/src && PATH=$PATH:/usr/local/go/bin PKG_CONFIG_PATH=$PWD/build/pkgconfig CGO_ENABLED=1 \
  CGO_CFLAGS="-O2 -g -DMB_NATIVE_ID=$(PKG_CONFIG_PATH=$PWD/build/pkgconfig scripts/native-id.sh)" \
  go test -tags boringssl -run '^$' -bench 'Benchmark(Seal|Open)$/.*/(64|512|1350|16384)$' -count 6 ./gossl >>/tmp/lb/aead/raw.txt 2>&1
echo "### done $(date -u +%H:%M:%S)" >>/tmp/lb/aead/raw.txt
