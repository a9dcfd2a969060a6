#!/usr/bin/env bash
# run.sh: moonbridge against an independent implementation of the Minecraft protocol,
# node-minecraft-protocol (npm), over raw TCP, ws and wss (each TLS provider), the WebSocket
# ones through `moonbridge client`. Not part of `make test`: the npm package and its data weigh
# about 500 MB, so they are installed into the cache directory on first use.
#
# Usage: bench/interop/run.sh [BIN]   (BIN defaults to bin/moonbridge; run `make build` first)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${1:-$root/bin/moonbridge}
version=1.68.0
cache=${MOONBRIDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/moonbridge}/interop/minecraft-protocol-$version
command -v node >/dev/null && command -v npm >/dev/null || {
  echo "interop: needs node and npm (Debian: apt-get install nodejs npm)" >&2; exit 2; }
if [ ! -d "$cache/node_modules/minecraft-protocol" ]; then
  echo "interop: installing minecraft-protocol@$version into $cache" >&2
  mkdir -p "$cache"
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error "minecraft-protocol@$version" >&2
fi
export NODE_PATH=$cache/node_modules

work=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "interop: nothing listens on $1" >&2; return 1; }

backend=$(free_port)
node "$root/bench/interop/backend.js" "$backend" >"$work/backend.log" 2>&1 & pids+=($!)
wait_port "$backend"
failed=0
check() { node "$root/bench/interop/client.js" "$1" "$2" || failed=1; }
check "$backend" "direct"

for provider in boringssl go; do
  proxy=$(free_port)
  "$bin" serve --listen "127.0.0.1:$proxy" --backend "127.0.0.1:$backend" --tls-provider "$provider" \
    --log-format json --log-level warn >"$work/serve-$provider.log" 2>&1 & pids+=($!)
  if ! wait_port "$proxy"; then
    echo "interop: moonbridge serve --tls-provider $provider did not start:" >&2
    cat "$work/serve-$provider.log" >&2; failed=1; continue
  fi
  [ "$provider" = boringssl ] && check "$proxy" "tcp"
  for scheme in ws wss; do
    [ "$scheme" = ws ] && [ "$provider" = go ] && continue # ws has no TLS: once is enough
    local_port=$(free_port)
    "$bin" client --url "$scheme://127.0.0.1:$proxy/mc" --insecure --listen "127.0.0.1:$local_port" \
      --log-format json --log-level warn >"$work/client-$scheme-$provider.log" 2>&1 & pids+=($!)
    wait_port "$local_port"
    label=$scheme; [ "$scheme" = wss ] && label="wss ($provider)"
    check "$local_port" "$label via moonbridge client"
  done
done
exit $failed
