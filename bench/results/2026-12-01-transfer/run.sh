#!/usr/bin/env bash
# The runs of 2026-12-01-transfer.md.
# Usage: run.sh MOONBRIDGE MOONBRIDGE_OLD MBBENCH OUT_DIR [drain|cost] (default: both series)
#   series drain: per player count (100, 1000), 8 rounds of (transfer, told, old), order rotating:
#     a fresh instance A drains by SIGTERM while its players are in play; B is the live instance.
#     transfer: A has shutdown.transfer_to B; told: it has none; old: MOONBRIDGE_OLD (main before
#     this work, 623ad98) drains as it did.
#   series cost:  8 pairs of (on, off) of the mover (MB_NO_MOVER=1 off: the experiment knob),
#     1000 players echoing 600 bytes every 100 ms through A for 20 s; A's CPU from /proc.
set -euo pipefail
mb=$1 old=$2 mbb=$3 out=$4 series=${5:-all}
mkdir -p "$out"
work=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }
ulimit -n "$(ulimit -Hn)"

backend=$(free_port) pa=$(free_port) pb=$(free_port)
"$mbb" backend --listen "127.0.0.1:$backend" --compression 256 --log-level warn >"$work/backend.log" 2>&1 & pids+=($!)
head -c 32 /dev/urandom | base64 >"$work/secret"

# config PORT TRANSFER_TO DRAIN_TIMEOUT [old]: old leaves out the keys 623ad98 does not know
config() {
  cat <<EOF
log: {format: json}
listeners:
  - listen: 127.0.0.1:$1
    protocols: [minecraft]
routes:
  - hosts: ["*"]
    backends: ["127.0.0.1:$backend"]
limits:
  max_connections: 100000
  max_connections_per_ip: 100000
  connection_rate_per_ip: 1000000
  connection_burst_per_ip: 1000000
  max_connections_per_network: 100000
  connection_rate_per_network: 1000000
  connection_burst_per_network: 1000000
  login_rate_per_network: 1000000
  login_burst_per_network: 1000000
defence:
  attack_mode: {enabled: false}
shutdown:
  drain_timeout: $3
EOF
  [ "${4:-}" = old ] || printf '  transfer_to: "%s"\n  transfer_secret_file: %s\n' "$2" "$work/secret"
}
config "$pb" "" 30s >"$work/b.yml"
"$mb" serve --config "$work/b.yml" >"$work/b.log" 2>&1 & pids+=($!)
wait_port "$backend"; wait_port "$pb"

# drain_run VARIANT N I: A as VARIANT (transfer, told, old); SIGTERM once all its players play.
drain_run() {
  local variant=$1 n=$2 i=$3 to="" name="$1-$2-$3" bin=$mb
  [ "$variant" = transfer ] && to="127.0.0.1:$pb"
  [ "$variant" = old ] && bin=$old
  config "$pa" "$to" 10s "$variant" >"$work/a.yml"
  "$bin" serve --config "$work/a.yml" >"$out/$name.a.log" 2>&1 &
  local a=$!
  wait_port "$pa"
  "$mbb" transfer --players "$n" --via tcp --from "127.0.0.1:$pa" --to "127.0.0.1:$pb" \
    --drain-cmd "kill -TERM $a" --wait 30s --join-concurrency 32 --interval 1s \
    >"$out/$name.json" 2>"$out/$name.txt" || true
  wait "$a" || true
  echo "$name: $(tail -n 3 "$out/$name.txt" | tr '\n' ' ')"
}

# cpu_run VARIANT I: 1000 players echo every 100 ms through A for 20 s; A's utime+stime.
cpu_run() {
  local variant=$1 i=$2 name="cost-$1-$2" env=()
  [ "$variant" = off ] && env=(MB_NO_MOVER=1)
  config "$pa" "127.0.0.1:$pb" 10s >"$work/a.yml"
  env "${env[@]}" "$mb" serve --config "$work/a.yml" >"$out/$name.a.log" 2>&1 &
  local a=$!
  wait_port "$pa"
  rm -f "$work/go"
  "$mbb" transfer --players 1000 --via tcp --from "127.0.0.1:$pa" --to "127.0.0.1:$pb" \
    --drain-file "$work/go" --wait 30s --join-concurrency 32 --interval 100ms \
    >"$out/$name.json" 2>"$out/$name.txt" &
  local m=$!
  # all joined: A holds a socket per player and one per backend connection
  for _ in $(seq 600); do
    [ "$(ls /proc/$a/fd | wc -l)" -ge 2000 ] && break
    sleep 0.1
  done
  sleep 3
  local t0 c0 t1 c1
  t0=$(date +%s.%N); c0=$(awk '{print $14+$15}' /proc/$a/stat)
  sleep 20
  t1=$(date +%s.%N); c1=$(awk '{print $14+$15}' /proc/$a/stat)
  touch "$work/go"
  kill -TERM "$a"
  wait "$m" || true
  wait "$a" || true
  local tck; tck=$(getconf CLK_TCK)
  echo "$name cpu_s=$(python3 -c "print(($c1-$c0)/$tck)") wall_s=$(python3 -c "print($t1-$t0)")" | tee -a "$out/cost.txt"
}

[ "$series" = cost ] || for n in 100 1000; do
  for i in 1 2 3 4 5 6 7 8; do
    case $((i % 3)) in
      1) drain_run transfer $n $i; drain_run told $n $i; drain_run old $n $i ;;
      2) drain_run told $n $i; drain_run old $n $i; drain_run transfer $n $i ;;
      0) drain_run old $n $i; drain_run transfer $n $i; drain_run told $n $i ;;
    esac
  done
done
[ "$series" = drain ] || for i in 1 2 3 4 5 6 7 8; do
  if [ $((i % 2)) = 1 ]; then cpu_run on $i; cpu_run off $i; else cpu_run off $i; cpu_run on $i; fi
done
