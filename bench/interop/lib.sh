# lib.sh, sourced by the interop runners: node-minecraft-protocol from the cache (NODE_PATH), a
# work directory removed on exit with the processes started into pids, free loopback ports, the
# head of a moonbridge config and the `moonbridge client` bridges.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
export NODE_PATH=${MOONBRIDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/moonbridge}/interop/node_modules
command -v node >/dev/null && [ -d "$NODE_PATH/minecraft-protocol" ] || {
  echo "interop: needs node and minecraft-protocol in $NODE_PATH; run scripts/bootstrap.sh interop" >&2; exit 2; }

work=$(mktemp -d)
pids=()
cleanup() { kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done
  echo "interop: nothing listens on $1" >&2; return 1; }

# serve_config PORT ADMIN: the head of a moonbridge config with JSON logs, the admin endpoint on
# ADMIN and one listener on PORT for minecraft, ws and wss; the runner appends its routes.
serve_config() { printf '%s\n' 'log: {level: info, format: json}' "admin: {listen: \"127.0.0.1:$2\"}" listeners: \
  "  - {listen: \"127.0.0.1:$1\", protocols: [minecraft, ws, wss]}"; }

# start_bridges BIN ADDR: `moonbridge client` for ws and for wss to ADDR's /mc (logs in
# bridge-SCHEME.log); their local ports go into the caller's associative array bridge.
start_bridges() {
  local scheme
  for scheme in ws wss; do
    bridge[$scheme]=$(free_port)
    "$1" client --url "$scheme://$2/mc" --insecure --listen "127.0.0.1:${bridge[$scheme]}" \
      --log-format json >"$work/bridge-$scheme.log" 2>&1 & pids+=($!)
    wait_port "${bridge[$scheme]}"
  done
}
