#!/bin/bash
# Runs of bench/results/2026-11-30-loop-raw-syscalls.md.
cd /tmp/lb/raw
BB=/tmp/lb/mbbench-new
S() { echo "--serve $1 --serve-arg=--config --serve-arg=loop1.yml"; }
ab() { # name args...
  local name=$1; shift
  echo "### $name $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" >>raw.txt
  echo "# $BB ab --pairs 12 --json --variant base=$(S /tmp/lb/mb-16844a3) --variant raw=$(S /tmp/lb/mb-raw) -- --repeats 2 --direct=false --connections 4 $*" >>raw.txt
  $BB ab --pairs 12 --json --variant "base=$(S /tmp/lb/mb-16844a3)" --variant "raw=$(S /tmp/lb/mb-raw)" -- --repeats 2 --direct=false --connections 4 "$@" >$name.json 2>$name.err
  echo "exit $?" >>raw.txt; grep -v '"session ended"' $name.err | grep -v '^{"level"' >>raw.txt
}
ab echo-tcp --transport tcp --profile echo --payload 1024 --window 8 --messages 50000 --warmup 2000
ab burst-tcp --transport tcp --profile echo --payload 32 --window 4 --burst 32 --messages 48000 --warmup 1024
ab m1-ws --transport ws --profile modded --window 1 --messages 10000 --warmup 500
echo "### done $(date -u +%H:%M:%S)" >>raw.txt
