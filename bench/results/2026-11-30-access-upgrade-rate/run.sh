#!/bin/sh
# The runs of 2026-11-30-access-upgrade-rate.md, from the repository root after `make build mbbench`.
set -eu
T=${T:-/tmp/lb/tokens}
R=bench/results/2026-11-30-access-upgrade-rate
mkdir -p "$T"
for v in ed25519:ed25519 mldsa65:ml-dsa-65 composite:ed25519+ml-dsa-65; do
  n=${v%%:*}
  [ -f "$T/$n.pub" ] || bin/moonbridge token keygen --alg "${v#*:}" --out "$T/$n" >/dev/null
  bin/moonbridge token issue --key "$T/$n.key" --subject bench --ttl 24h >"$T/$n.token"
done
for tr in ws wss; do
  uptime
  bin/mbbench ab --pairs 8 --json \
    --variant "off=" \
    --variant "ed25519=--token-key $T/ed25519.pub --token-file $T/ed25519.token" \
    --variant "ed25519-cache=--token-key $T/ed25519.pub --token-file $T/ed25519.token --token-cache 4096" \
    --variant "mldsa65=--token-key $T/mldsa65.pub --token-file $T/mldsa65.token" \
    --variant "composite=--token-key $T/composite.pub --token-file $T/composite.token" \
    --variant "composite-cache=--token-key $T/composite.pub --token-file $T/composite.token --token-cache 4096" \
    -- --mode upgrades --serve bin/moonbridge --tls-provider boringssl --transport "$tr" \
       --connections 16 --warmup-duration 2s --duration 8s --repeats 1 --direct=false \
    >"$R/$tr.json" 2>"$R/$tr-raw.txt"
done
uptime
go test -run '^$' -bench 'BenchmarkVerify' -count 6 ./access >"$R/micro-raw.txt"
