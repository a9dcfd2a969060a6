# lib.sh, sourced by the interop runners: node-minecraft-protocol from the cache (NODE_PATH), a
# work directory removed on exit with the processes started into pids, and free loopback ports.
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
