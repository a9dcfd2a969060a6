#!/usr/bin/env bash
# run.sh: moonbridge against an independent implementation of the Minecraft protocol,
# node-minecraft-protocol (npm), over raw TCP, ws and wss (each TLS provider), the WebSocket
# ones through `moonbridge client`; then the same with moonbridge running the login itself
# (auth: online against a fake session server, session.js) and BungeeCord forwarding to an
# offline backend that checks the forwarded profile. Not part of `make test`: the npm package and its data weigh
# about 500 MB; `scripts/bootstrap.sh interop` installs them (and node) into the cache directory.
#
# Usage: bench/interop/run.sh [BIN]   (BIN defaults to bin/moonbridge; `make interop` builds it
# and runs the bootstrap first)
set -euo pipefail

. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bin=${1:-$root/bin/moonbridge}

backend=$(free_port)
node "$root/bench/interop/backend.js" "$backend" >"$work/backend.log" 2>&1 & pids+=($!)
wait_port "$backend"
failed=0
check() { node "$root/bench/interop/client.js" "$@" || failed=1; }
check "$backend" "direct"

# The online-mode runs: a session server, a backend that wants BungeeCord's forwarding, and a
# config whose route runs the login (the flags below replace its listeners and TLS provider).
session=$(free_port)
node "$root/bench/interop/session.js" "$session" >"$work/session.log" 2>&1 & pids+=($!)
forwarded=$(free_port)
node "$root/bench/interop/backend.js" "$forwarded" bungeecord >"$work/backend-forwarded.log" 2>&1 & pids+=($!)
wait_port "$session"; wait_port "$forwarded"
cat >"$work/online.yml" <<EOF
routes:
  - hosts: ["*"]
    backends: ["127.0.0.1:$forwarded"]
    auth: online
    forwarding: bungeecord
login:
  session_server: http://127.0.0.1:$session
EOF

for run in boringssl go boringssl-online go-online; do
  provider=${run%-online}
  target=(--backend "127.0.0.1:$backend") online=() mode=""
  if [ "$run" != "$provider" ]; then
    target=(--config "$work/online.yml") online=("http://127.0.0.1:$session") mode=", online"
  fi
  proxy=$(free_port)
  "$bin" serve --listen "127.0.0.1:$proxy" "${target[@]}" --tls-provider "$provider" \
    --log-format json --log-level warn >"$work/serve-$run.log" 2>&1 & pids+=($!)
  if ! wait_port "$proxy"; then
    echo "interop: moonbridge serve ($run) did not start:" >&2
    cat "$work/serve-$run.log" >&2; failed=1; continue
  fi
  [ "$provider" = boringssl ] && check "$proxy" "tcp$mode" "${online[@]}"
  for scheme in ws wss; do
    [ "$scheme" = ws ] && [ "$provider" = go ] && continue # ws has no TLS: once is enough
    local_port=$(free_port)
    "$bin" client --url "$scheme://127.0.0.1:$proxy/mc" --insecure --listen "127.0.0.1:$local_port" \
      --log-format json --log-level warn >"$work/client-$scheme-$run.log" 2>&1 & pids+=($!)
    wait_port "$local_port"
    label=$scheme; [ "$scheme" = wss ] && label="wss ($provider)"
    check "$local_port" "$label via moonbridge client$mode" "${online[@]}"
  done
done
[ "$failed" = 0 ] || cat "$work"/backend-forwarded.log "$work"/serve-*.log >&2
exit $failed
