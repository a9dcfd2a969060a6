#!/bin/sh
# The proxy runs of 2026-11-30-cfb8-decrypt-ahead.md: base = make build of 861e171, ahead = of 21cc7e8.
set -eu
D=bench/results/2026-11-30-cfb8-decrypt-ahead
uptime
bin/mbbench ab --pairs 8 --json \
  --variant "base=--serve /tmp/lb/mb-861e171 --auth online" --variant "ahead=--serve /tmp/lb/mb-21cc7e8 --auth online" \
  -- --profile modded --window 8 --connections 4 --messages 20000 --warmup 500 --repeats 2 --direct=false --transport tcp \
  >"$D/m8-tcp.json" 2>"$D/m8-tcp-raw.txt"
uptime
