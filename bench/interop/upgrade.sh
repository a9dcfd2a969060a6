#!/usr/bin/env bash
# upgrade.sh: players of several releases play on through an upgrade in place (SIGUSR2,
# docs/upgrade.md), with node-minecraft-protocol's clients (upgrade.js) and server
# (upgrade-backend.js). One moonbridge, started from a copy of BIN, routes to the backend with
# the login passed through, and for the host online.interop with the login run by moonbridge
# (`auth: online` against session.js, a fake session server). Nine players join it with the
# login passed through, 1.8.9, 1.12.2 and 1.21.4 each over raw TCP (tcp_*), ws (ws_*) and wss
# (wss_*), and three online (on_tcp 1.21.4, on_ws 1.12.2, on_wss 1.8.9: their streams are
# encrypted by moonbridge's AES/CFB8), the WebSocket ones through `moonbridge client`, and play
# on a timer: position packets and chat messages, each echoed by the backend with the count of
# positions it read (upgrade.js checks both). Then BIN is installed over the copy (a new file, as
# a package does) and moonbridge gets SIGUSR2. After the hand-over line three more players join
# (late_*, one over each), and everyone plays on for some seconds more. It checks:
#   - no player saw a Disconnect or a closed connection; each had every chat echoed, in order,
#     with the exact move count, and at least min_after chats echoed after the upgrade;
#   - the old process moved all 12 (wss too: BIN is the BoringSSL build, the bridge speaks TLS
#     1.3; the online ones with their cipher), kept none, said it is done (12 moved, 0 stayed)
#     and exited 0 at once, while they play;
#   - the new process took the 12 and serves the late joins: its /sessions lists all 15;
#   - every player has one end line, written by the new process after the old one's last line,
#     whose duration is its whole life (and says online for the online ones), and joined the
#     backend once (no rejoin).
# Bounded: about a minute (at most about four on a loaded machine), loopback only; every process it starts is
# ended on exit. Not part of `make test`.
#
# Usage: bench/interop/upgrade.sh [BIN]   (BIN defaults to bin/moonbridge; `make
# interop-upgrade` builds it and runs the bootstrap first). Linux only (SIGUSR2 upgrades there).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=${1:-$root/bin/moonbridge}
versions=(1.8.9 1.12.2 1.21.4)
min_after=8 # chats echoed after the upgrade, per player: 2 s of play at 4 a second

backend=$(free_port) port=$(free_port) admin=$(free_port) session=$(free_port)
node "$root/bench/interop/upgrade-backend.js" "$backend" >"$work/backend.log" 2>&1 & pids+=($!)
node "$root/bench/interop/session.js" "$session" >"$work/session.log" 2>&1 & pids+=($!)
serve_config "$port" "$admin" >"$work/moonbridge.yml"
cat >>"$work/moonbridge.yml" <<EOF
routes:
  - {name: online, hosts: [online.interop], backends: ["127.0.0.1:$backend"], auth: online, forwarding: none}
  - {name: game, hosts: ["*"], backends: ["127.0.0.1:$backend"]}
login: {session_server: "http://127.0.0.1:$session"}
upgrade: {timeout: 30s, stay: 5m}
shutdown: {drain_timeout: 2s}
EOF
# The upgrade starts the file at the path the proxy was started as: a copy that can be replaced.
install -m 0755 "$bin" "$work/moonbridge"
"$work/moonbridge" serve --config "$work/moonbridge.yml" >"$work/moonbridge.log" 2>&1 & old=$! pids+=($!)
wait_port "$port" || { cat "$work/moonbridge.log" >&2; exit 1; }
wait_port "$backend"; wait_port "$session"
declare -A bridge
start_bridges "$bin" "127.0.0.1:$port"
declare -A entry=([tcp]=$port [ws]=${bridge[ws]} [wss]=${bridge[wss]}) # where players join

failed=0
fail() { echo "upgrade: FAIL $*"; failed=1; }
# want WHAT GOT EXPECTED: one line of the checks.
want() { if [ "$2" = "$3" ]; then echo "upgrade: ok: $1: $2"; else fail "$1: $2, want $3"; fi; }
# field FILE MESSAGE_PART KEY: KEY's JSON value on FILE's first line whose message holds MESSAGE_PART.
field() { { grep -F "$2" "$1" || true; } | head -n 1 | python3 -c 'import json, sys
line = sys.stdin.readline()
print(json.dumps(json.loads(line).get(sys.argv[1]), sort_keys=True) if line else "no such line")' "$3"; }

declare -A player
# play NAME TRANSPORT VERSION [--late]: starts upgrade.js as NAME through TRANSPORT's entry.
play() {
  node "$root/bench/interop/upgrade.js" --name "$1" --port "${entry[$2]}" --version "$3" --after "$min_after" \
    "${@:4}" >"$work/$1.out" 2>&1 & player[$1]=$! pids+=($!)
}
# all_ready NAME...: waits (at most 60 s: node starts slowly on a loaded machine) until each
# NAME printed ready; false when one did not (or already ended).
all_ready() {
  local name ready
  for _ in $(seq 600); do
    ready=0
    for name in "$@"; do
      grep -q ': ready:' "$work/$name.out" && ready=$((ready + 1))
      kill -0 "${player[$name]}" 2>/dev/null || return 1
    done
    [ "$ready" = $# ] && return 0
    sleep 0.1
  done
  return 1
}
early=() late=()
for transport in tcp ws wss; do
  for version in "${versions[@]}"; do
    name=${transport}_${version//./}
    play "$name" "$transport" "$version"
    early+=("$name")
  done
done
online=(on_tcp on_ws on_wss)
online_version=([0]=1.21.4 [1]=1.12.2 [2]=1.8.9)
for i in 0 1 2; do
  play "${online[$i]}" "${online[$i]#on_}" "${online_version[$i]}" --session "http://127.0.0.1:$session" --host online.interop
done
early+=("${online[@]}")
all_ready "${early[@]}" || fail "not every player joined before the upgrade"
sleep 3 # some play before the upgrade
[ "$failed" = 0 ] || { tail -n 5 "$work"/*.out "$work"/*.log >&2; exit 1; }

install -m 0755 "$bin" "$work/moonbridge"
echo "upgrade: SIGUSR2 to moonbridge (pid $old)"
kill -USR2 "$old"
handed="upgrade: the new process accepts on the listeners now"
for _ in $(seq 400); do grep -qF "$handed" "$work/moonbridge.log" && break; sleep 0.1; done
new=$(field "$work/moonbridge.log" "$handed" new_pid)
[[ "$new" =~ ^[0-9]+$ ]] || { fail "no hand-over line in 40 s"; tail -n 20 "$work/moonbridge.log" >&2; exit 1; }
pids+=("$new")
kill -USR2 "${player[@]}" 2>/dev/null || true # the mark, from which they count "after" (one that failed has ended)

for version in "${versions[@]}"; do late+=("late_${version//./}"); done
play "${late[0]}" wss "${versions[0]}" --late
play "${late[1]}" tcp "${versions[1]}" --late
play "${late[2]}" ws "${versions[2]}" --late
all_ready "${late[@]}" || fail "not every late player joined after the upgrade"
sleep 3 # everyone plays on

sessions=$(python3 -c 'import json, sys, urllib.request
s = json.load(urllib.request.urlopen(sys.argv[1]))["sessions"]
print(" ".join(sorted(x.get("player", "-") + "/" + x["transport"] for x in s if x["relaying"])))' "http://127.0.0.1:$admin/sessions" ||
  echo "no answer from the admin endpoint")
want "the new process's sessions (player/transport)" "$sessions" \
  "late_1122/minecraft late_1214/ws late_189/wss on_tcp/minecraft on_ws/ws on_wss/wss tcp_1122/minecraft tcp_1214/minecraft tcp_189/minecraft ws_1122/ws ws_1214/ws ws_189/ws wss_1122/wss wss_1214/wss wss_189/wss"
for _ in $(seq 150); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
kill -0 "$old" 2>/dev/null && still=running || still=ended
want "the old process, with no session left (within 15 s)" "$still" ended

# stop NAME...: ends those players' game (upgrade.js checks and prints its counts) and waits.
stop() {
  local name
  for name in "$@"; do kill -TERM "${player[$name]}" 2>/dev/null || true; done # one that failed has ended
  for name in "$@"; do
    wait "${player[$name]}" || failed=1
    grep -v ': ready:\|: mark:' "$work/$name.out" || true
  done
}
# With every session moved, the old process exits 0 at once (the check of its state above saw it
# gone); everyone plays on in the new one.
status=running
kill -0 "$old" 2>/dev/null || { status=0; wait "$old" || status=$?; }
want "the old process's exit status" "$status" 0
sleep 2
stop "${early[@]}" "${late[@]}"
kill -TERM "$new" 2>/dev/null || fail "the new process had ended before its SIGTERM"
for _ in $(seq 150); do kill -0 "$new" 2>/dev/null || break; sleep 0.1; done
kill -0 "$new" 2>/dev/null && fail "the new process still runs 15 s after SIGTERM"

log=$work/moonbridge.log # both processes write to it
want "hand-over: moved" "$(field "$log" "$handed" moved)" 12
want "hand-over: let go without an answer" "$(field "$log" "$handed" unknown)" 0
want "hand-over: sessions staying in the old process" "$(field "$log" "$handed" sessions)" 0
want "the new process: moved in" "$(field "$log" "sessions moved in from the old process" taken)" 12
want "the new process: refused" "$(field "$log" "sessions moved in from the old process" refused)" 0
done_line="upgrade: this process is done"
want "the old process's end: moved, stayed, ended, closed" "$(for k in moved stayed ended closed; do
  field "$log" "$done_line" "$k"; done | paste -sd ' ')" "12 0 0 0"
# whole_life FILE PLAYER: yes when PLAYER's end line's duration covers more than the time from the
# hand-over to that line plus 1.5 s (it played 3 s before the upgrade; the times are in seconds).
whole_life() { python3 -c 'import datetime, json, re, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
at = lambda l: datetime.datetime.fromisoformat(l["time"].replace("Z", "+00:00")).timestamp()
handed = [l for l in lines if l["message"].startswith("upgrade: the new process accepts")]
end = [l for l in lines if l["message"] == "session ended" and l.get("player") == sys.argv[2]]
if len(handed) != 1 or len(end) != 1: sys.exit(print("no single hand-over and end line"))
units = {"h": 3600, "m": 60, "s": 1, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9}
life = sum(float(n) * units[u] for n, u in re.findall(r"([0-9.]+)(h|ms|m|s|us|µs|ns)", end[0]["duration"]))
print("yes" if life > at(end[0]) - at(handed[0]) + 1.5 else "%.1f s, %.0f s since the hand-over" % (life, at(end[0]) - at(handed[0])))' "$1" "$2"; }
# Each player has one end line, and one join at the backend: after the old process's last line
# (the new process wrote them).
last=$(grep -nF "$done_line" "$log" | head -n 1 | cut -d: -f1 || true)
for name in "${early[@]}" "${late[@]}"; do
  ends=$(grep -nF '"session ended"' "$log" | grep -F "\"player\":\"$name\"" | cut -d: -f1 || true)
  where="$(wc -w <<<"$ends") lines"
  if [ "$where" = "1 lines" ]; then
    if [ -z "$last" ]; then where="unknown (the old process has no last line)"; elif [ "$ends" -lt "$last" ]; then where=old; else where=new; fi
  fi
  want "$name's end line: one, by" "$where" new
  [[ "$name" == late_* ]] || want "$name's end line counts its whole life, from before the move" "$(whole_life "$log" "$name")" yes
  want "$name's joins at the backend" "$(grep -cF "{\"joined\":\"$name\"" "$work/backend.log")" 1
done
for name in "${online[@]}"; do
  want "$name's end line says online" "$(grep -F '"session ended"' "$log" | grep -F "\"player\":\"$name\"" | grep -cF '"online":true')" 1
done
[ "$failed" = 0 ] || { echo "upgrade: logs"; tail -n 30 "$work"/*.log; } >&2
exit $failed
