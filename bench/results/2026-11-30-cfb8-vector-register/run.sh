#!/bin/sh
# The proxy runs of 2026-11-30-cfb8-vector-register.md: base = make build of addde53 (auto: Go's
# CFB8), vec = of 8e705dc (auto: the shim's AES-NI CFB8); mbbench of addde53 for both.
set -eu
D=bench/results/2026-11-30-cfb8-vector-register
uptime
/tmp/lb/mbbench-addde53 ab --pairs 8 --json \
  --variant "base=--serve /tmp/lb/mb-addde53 --auth online" --variant "vec=--serve /tmp/lb/mb-8e705dc --auth online" \
  -- --profile modded --window 8 --connections 4 --messages 20000 --warmup 500 --repeats 2 --direct=false --transport tcp \
  >"$D/m8-tcp.json" 2>"$D/m8-tcp-raw.txt"
uptime
