#!/usr/bin/env bash
# transfer.sh: a drain that moves players (shutdown.transfer_to, docs/running.md "Moving players
# instead of dropping them") with node-minecraft-protocol's clients (transfer.js). Two moonbridge
# instances A and B route to one nmp backend; a fake CDN (cdn.js) sends each new connection to A
# while A accepts and to B after. Seven players join through A and play:
#
#   tcp          raw TCP, auth: offline route                moved to B (transfer_to)
#   passthrough  raw TCP, passthrough route (offline backend) moved to B
#   online       raw TCP, auth: online route (session.js)    moved to B out of an encrypted stream
#   configure    raw TCP, back in the configuration state    moved to B, Transfer in configuration
#   ws, wss      through `moonbridge client` and the CDN      moved to their bridge, which reaches B
#   old          1.20.4 (no Transfer packet), raw TCP         not moved: closed at the drain's end
#
# On B every moved player lands on the offline route: the Transfer names B by address.
# Then A gets SIGTERM. Each moved client must follow its Transfer (next state 3, the cookie A
# stored), play on B and see no Disconnect; old must not be sent a Transfer. The logs must agree:
# A's "drained" line, B's end lines of transfer logins, B's count of valid cookies, the backend's
# handshakes (all next state 2) and the CDN's connections. Not part of `make test`.
#
# Usage: bench/interop/transfer.sh [BIN]   (BIN defaults to bin/moonbridge; `make
# interop-transfer` builds it and runs the bootstrap first). MB_INTEROP_VERSION: the 1.20.5+
# release the moved players speak (default 1.21.4).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=${1:-$root/bin/moonbridge}
version=${MB_INTEROP_VERSION:-1.21.4}
moved=(tcp passthrough online configure ws wss)
declare -A player_name=([online]=interop) # session.js's player; the others play as their label

backend=$(free_port) session=$(free_port)
node "$root/bench/interop/backend.js" "$backend" any >"$work/backend.log" 2>&1 & pids+=($!)
node "$root/bench/interop/session.js" "$session" >"$work/session.log" 2>&1 & pids+=($!)
head -c 32 /dev/urandom >"$work/transfer.secret"

# instance NAME TRANSFER_TO: starts moonbridge NAME (port in port_NAME, admin in admin_NAME).
instance() {
  local port admin
  port=$(free_port) admin=$(free_port)
  serve_config "$port" "$admin" >"$work/$1.yml"
  cat >>"$work/$1.yml" <<EOF
routes:
  - {name: passthrough, hosts: [passthrough.interop], backends: ["127.0.0.1:$backend"]}
  - {name: online, hosts: [online.interop], backends: ["127.0.0.1:$backend"], auth: online}
  - {name: offline, hosts: ["*"], backends: ["127.0.0.1:$backend"], auth: offline}
login: {session_server: "http://127.0.0.1:$session"}
shutdown:
  drain_timeout: 8s
  motd: "interop: $1 is restarting"
  transfer_to: "$2"
  transfer_secret_file: $work/transfer.secret
EOF
  "$bin" serve --config "$work/$1.yml" >"$work/$1.log" 2>&1 & pids+=($!)
  printf -v "pid_$1" %s $!
  printf -v "port_$1" %s "$port"
  printf -v "admin_$1" %s "$admin"
  wait_port "$port" || { cat "$work/$1.log" >&2; exit 1; }
}
instance B ""
instance A "127.0.0.1:$port_B"
wait_port "$backend"; wait_port "$session"
cdn=$(free_port)
node "$root/bench/interop/cdn.js" "$cdn" "127.0.0.1:$port_A" "127.0.0.1:$port_B" >"$work/cdn.log" 2>&1 & pids+=($!)
for _ in $(seq 100); do grep -q 'cdn listening' "$work/cdn.log" && break; sleep 0.1; done # a probe would reach A
declare -A bridge
start_bridges "$bin" "127.0.0.1:$cdn"

declare -A client
player() { # NAME ARGS...: starts transfer.js as NAME
  node "$root/bench/interop/transfer.js" --name "$1" "${@:2}" >"$work/$1.out" 2>&1 & client[$1]=$!
}
player tcp --port "$port_A" --version "$version" --expect "127.0.0.1:$port_B"
player passthrough --port "$port_A" --version "$version" --host passthrough.interop --expect "127.0.0.1:$port_B"
player online --port "$port_A" --version "$version" --host online.interop --session "http://127.0.0.1:$session" \
  --expect "127.0.0.1:$port_B"
player configure --port "$port_A" --version "$version" --configure --expect "127.0.0.1:$port_B"
player ws --port "${bridge[ws]}" --version "$version" --expect "127.0.0.1:${bridge[ws]}"
player wss --port "${bridge[wss]}" --version "$version" --expect "127.0.0.1:${bridge[wss]}"
player old --port "$port_A" --version 1.20.4 --stay

failed=0
fail() { echo "transfer: FAIL $*"; failed=1; }
# All must be ready before the drain (one that already failed stops the wait).
for _ in $(seq 300); do
  ready=0
  for name in "${!client[@]}"; do grep -q ': ready:' "$work/$name.out" && ready=$((ready + 1)); done
  [ "$ready" = ${#client[@]} ] && break
  for name in "${!client[@]}"; do kill -0 "${client[$name]}" 2>/dev/null || break 2; done
  sleep 0.1
done
for name in "${moved[@]}" old; do grep ': ready:' "$work/$name.out" || true; done
echo "transfer: SIGTERM to A"
kill -TERM "$pid_A"
for name in "${moved[@]}" old; do
  wait "${client[$name]}" || failed=1
  grep -v ': ready:' "$work/$name.out" || true
done
wait "$pid_A" || fail "A exited with status $?"

# count FILE PATTERN...: lines of FILE that hold every fixed string PATTERN.
count() {
  local file=$1 lines
  lines=$(cat "$file")
  for p in "${@:2}"; do lines=$(grep -F -- "$p" <<<"$lines" || true); done
  [ -n "$lines" ] && wc -l <<<"$lines" || echo 0
}
# want WHAT GOT EXPECTED: one line of the checks.
want() { if [ "$2" = "$3" ]; then echo "transfer: ok: $1: $2"; else fail "$1: $2, want $3"; fi; }

# The moved players' end lines: on A with transferred_to, on B of a transfer login over the
# protocol they left A on (a bridged player's new WebSocket came through the CDN).
left=0 arrived=0
for name in "${moved[@]}"; do
  to=127.0.0.1:$port_B protocol=minecraft
  [ -n "${bridge[$name]:-}" ] && to=127.0.0.1:${bridge[$name]} protocol=$name
  player=\"player\":\"${player_name[$name]:-$name}\"
  left=$((left + $(count "$work/A.log" '"session ended"' "$player" "\"transferred_to\":\"$to\"")))
  arrived=$((arrived + $(count "$work/B.log" '"session ended"' "$player" '"next":"transfer"' "\"protocol\":\"$protocol\"")))
done
want "A's drained line" "$(grep -F '"message":"drained"' "$work/A.log" |
  grep -o '"ended":[0-9]*,"closed":[0-9]*,"transferred":[0-9]*,"told":[0-9]*')" '"ended":6,"closed":1,"transferred":6,"told":0'
want "A's end lines with transferred_to B or the player's bridge" "$left" 6
want "B's end lines of transfer logins (next transfer, over the protocol they left A on)" "$arrived" 6
want "A's end line of old: closed at the drain's end" \
  "$(count "$work/A.log" '"session ended"' '"player":"old"' '"close_reason":"proxy shutting down"')" 1
metrics=$(python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' "http://127.0.0.1:$admin_B/metrics")
want "B's moonbridge_transfer_cookies_total{result=\"valid\"}" "$(grep -F 'moonbridge_transfer_cookies_total{result="valid"}' <<<"$metrics" | cut -d' ' -f2)" 6
want "backend login handshakes (A: 7, B: 6), next state 2" "$(count "$work/backend.log" '"handshake":2')" 13
want "backend login handshakes of another next state" "$(grep '"handshake"' "$work/backend.log" | grep -vcF '"handshake":2')" 0
want "CDN connections to A, to B" "$(count "$work/cdn.log" "cdn: to 127.0.0.1:$port_A"), $(count "$work/cdn.log" "cdn: to 127.0.0.1:$port_B")" "2, 2"
[ "$failed" = 0 ] || { echo "transfer: logs"; tail -n 30 "$work"/*.log "$work"/*.out; } >&2
exit $failed
