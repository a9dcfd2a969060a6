#!/usr/bin/env bash
# peers.sh: the relays moonbridge is compared with, from Debian's packages, on loopback in front
# of mbbench's fake backend. See README.md for each configuration and why it is fair. The
# packages come from `scripts/bootstrap.sh peers` (make bench-peers runs it).
#
#   peers.sh start     write the configs, start every peer, print NAME ADDRESS PID lines
#   peers.sh stop      stop the peers this script started (by the PIDs it recorded)
#   peers.sh check     run a short mbbench echo through every peer (needs bin/mbbench)
#
# Environment: BACKEND (default 127.0.0.1:25566, mbbench's --backend default), PEERS_DIR (state,
# configs, logs, the throwaway certificate; default /tmp/mbbench-peers), MBBENCH (bin/mbbench).
set -euo pipefail

BACKEND=${BACKEND:-127.0.0.1:25566}
PEERS_DIR=${PEERS_DIR:-/tmp/mbbench-peers}
MBBENCH=${MBBENCH:-bin/mbbench}
here=$(cd "$(dirname "$0")" && pwd)

# name, transport, listen address: the peers and where they listen.
PEERS=(
  "haproxy tcp 127.0.0.1:25580"
  "websockify-ws ws 127.0.0.1:25581"
  "websockify-wss wss 127.0.0.1:25584"
  "v2ray-ws ws 127.0.0.1:25582"
  "v2ray-wss wss 127.0.0.1:25583"
)

# cert makes a throwaway ECDSA P-256 certificate for localhost, the kind moonbridge generates
# when it has none, so every relay's wss runs on the same key type.
cert() {
  [ -f "$PEERS_DIR/cert.pem" ] && return
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 \
    -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1 \
    -keyout "$PEERS_DIR/key.pem" -out "$PEERS_DIR/cert.pem" 2>/dev/null
}

# configs fills the templates in this folder with the backend and the state folder.
configs() {
  local host=${BACKEND%:*} port=${BACKEND##*:}
  for t in haproxy.cfg v2ray-ws.json v2ray-wss.json; do
    sed -e "s|@BACKEND@|$BACKEND|g" -e "s|@BACKEND_HOST@|$host|g" -e "s|@BACKEND_PORT@|$port|g" \
      -e "s|@PEERS_DIR@|$PEERS_DIR|g" "$here/$t" >"$PEERS_DIR/$t"
  done
}

# launch NAME starts one peer in the background and records its PID.
launch() {
  local name=$1 log="$PEERS_DIR/$1.log"
  case $name in
    haproxy) haproxy -db -f "$PEERS_DIR/haproxy.cfg" >"$log" 2>&1 & ;;
    websockify-ws) websockify 127.0.0.1:25581 "$BACKEND" >"$log" 2>&1 & ;;
    websockify-wss) websockify --ssl-only --cert "$PEERS_DIR/cert.pem" --key "$PEERS_DIR/key.pem" \
      127.0.0.1:25584 "$BACKEND" >"$log" 2>&1 & ;;
    v2ray-ws | v2ray-wss) v2ray -config "$PEERS_DIR/$name.json" >"$log" 2>&1 & ;;
  esac
  echo $! >"$PEERS_DIR/$name.pid"
}

# listening ADDR waits up to 5 s for a TCP listener.
listening() {
  local host=${1%:*} port=${1##*:}
  for _ in $(seq 50); do
    (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

start() {
  mkdir -p "$PEERS_DIR"
  cert
  configs
  local failed=0
  for p in "${PEERS[@]}"; do
    read -r name transport addr <<<"$p"
    launch "$name"
    if listening "$addr"; then
      echo "$name $transport $(endpoint "$transport" "$addr") $(cat "$PEERS_DIR/$name.pid")"
    else
      echo "$name did not start; see $PEERS_DIR/$name.log" >&2
      failed=1
    fi
  done
  return $failed
}

endpoint() {
  case $1 in
    tcp) echo "$2" ;;
    *) echo "$1://$2/mc" ;;
  esac
}

stop() {
  for p in "${PEERS[@]}"; do
    read -r name _ _ <<<"$p"
    local pidfile="$PEERS_DIR/$name.pid"
    [ -f "$pidfile" ] || continue
    kill "$(cat "$pidfile")" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

# check runs a short echo through each peer; mbbench starts the fake backend on BACKEND.
check() {
  for p in "${PEERS[@]}"; do
    read -r name transport addr <<<"$p"
    local pid
    pid=$(cat "$PEERS_DIR/$name.pid")
    if "$MBBENCH" run --backend "$BACKEND" --transport "$transport" --target "$(endpoint "$transport" "$addr")" \
      --target-pid "$pid" --profile echo --connections 2 --messages 200 --warmup 20 --repeats 1 --direct=false \
      >/dev/null 2>"$PEERS_DIR/$name.check.log"; then
      echo "$name: relays ($transport)"
    else
      echo "$name: FAILED, see $PEERS_DIR/$name.check.log" >&2
      return 1
    fi
  done
}

case ${1:-} in
  start | stop | check) "$1" ;;
  *) sed -n '2,11p' "$0" >&2; exit 2 ;;
esac
