#!/bin/sh
# The runs of 2026-11-30-online-login-cpu.md, from the repository root after `make build mbbench`.
set -eu
R=bench/results/2026-11-30-online-login-cpu
run() { # name, then the workload's flags
  name=$1; shift
  uptime
  bin/mbbench ab --pairs 8 --json \
    --variant "pass=--auth passthrough" --variant "online=--auth online" \
    -- --serve bin/moonbridge --profile modded --connections 4 --repeats 2 --direct=false "$@" \
    >"$R/$name.json" 2>"$R/$name-raw.txt"
}
run m1-tcp --window 1 --messages 10000 --warmup 500 --transport tcp
run m8-tcp --window 8 --messages 20000 --warmup 500 --transport tcp
run m8-wss --window 8 --messages 20000 --warmup 500 --transport wss --tls-provider boringssl
uptime
