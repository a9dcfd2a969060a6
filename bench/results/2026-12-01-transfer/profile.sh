#!/usr/bin/env bash
# One run of the cost workload (mover on) with pprof on A's admin port: a 15 s CPU profile.
set -euo pipefail
mb=/tmp/mb-exp mbb=/tmp/mbbench out=$1
work=$(mktemp -d); pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.05; done; return 1; }
backend=$(free_port) pa=$(free_port) pb=$(free_port) adm=$(free_port)
"$mbb" backend --listen "127.0.0.1:$backend" --compression 256 --log-level warn >/dev/null 2>&1 & pids+=($!)
cat >"$work/a.yml" <<Y
log: {level: warn}
admin: {listen: "127.0.0.1:$adm", pprof: true}
listeners: [{listen: "127.0.0.1:$pa", protocols: [minecraft]}]
routes: [{hosts: ["*"], backends: ["127.0.0.1:$backend"]}]
limits: {max_connections: 100000, max_connections_per_ip: 100000, connection_rate_per_ip: 1000000, connection_burst_per_ip: 1000000, max_connections_per_network: 100000, connection_rate_per_network: 1000000, connection_burst_per_network: 1000000, login_rate_per_network: 1000000, login_burst_per_network: 1000000}
defence: {attack_mode: {enabled: false}}
shutdown: {drain_timeout: 5s, transfer_to: "127.0.0.1:$pb"}
Y
"$mb" serve --config "$work/a.yml" >"$work/a.log" 2>&1 & a=$!; pids+=($a)
wait_port "$pa"; wait_port "$backend"
"$mbb" transfer --players 1000 --via tcp --from "127.0.0.1:$pa" --to "127.0.0.1:$pb" --drain-file "$work/go" --wait 5s --join-concurrency 32 --interval 100ms >/dev/null 2>&1 & pids+=($!)
for _ in $(seq 600); do [ "$(ls /proc/$a/fd | wc -l)" -ge 2000 ] && break; sleep 0.1; done
sleep 3
curl -s -o "$out" "http://127.0.0.1:$adm/debug/pprof/profile?seconds=15"
touch "$work/go"; kill -TERM $a
