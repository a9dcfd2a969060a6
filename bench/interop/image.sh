#!/usr/bin/env bash
# image.sh: dist's container image in podman, in front of node-minecraft-protocol (npm). It loads
# DIST/moonbridge_<VERSION>_oci-image.tar into a podman store of its own (in the work directory,
# removed on exit), runs it as the image says (its non-root user, `serve --config
# /etc/moonbridge/moonbridge.yml`) with the config and a certificate mounted read-only, a
# read-only root file system without tmpfs, every capability dropped, no new privileges and the
# host's network (everything stays on loopback), and checks from the host that the process is
# uid 65532 with no capability and that / and the mounts are read-only. Then nmp's 1.12.2 client
# (client.js) plays through it over raw TCP, ws and wss (the WebSocket ones through dist's own
# `moonbridge client`, wss checking the mounted certificate), `podman kill --signal HUP` must
# reload the config, two 1.21.4 players (transfer.js --stay, tcp and wss) stay on, and `podman
# stop` sends SIGTERM: /readyz must turn 503, both players must be closed at the drain's end
# with a Disconnect carrying shutdown.motd, the "drained" line must count them, and the
# container must exit 0 before podman's SIGKILL.
#
# The OCI runtime is runc, with nofile and nproc set: see docs/deploy.md, "What was run", for what
# podman's defaults (crun, its ulimits) do on a VM like the project's. Each such difference is
# printed as a "note:" line; a check that fails is a "FAIL" line and the exit status is 1.
#
# Usage: bench/interop/image.sh DIST VERSION   (`make interop-image` runs `make dist` when the
# image is not there, and the bootstrap of node, nmp, podman and runc first). As root.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
dist=${1:?usage: image.sh DIST VERSION} version=${2:?usage: image.sh DIST VERSION}
tar=$dist/moonbridge_${version}_oci-image.tar
arch=$(dpkg --print-architecture)
archive=$dist/moonbridge_${version}_linux_${arch}_boringssl.tar.gz
for f in "$tar" "$archive"; do
  [ -f "$f" ] || { echo "image: FAIL no $f; run make dist" >&2; exit 1; }
done
command -v podman >/dev/null && command -v runc >/dev/null ||
  { echo "image: needs podman and runc; run scripts/bootstrap.sh docker" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "image: run as root (rootful podman; the key is given to the image's uid)" >&2; exit 2; }

drain_timeout=3 stop_timeout=20 motd="interop: the image is draining"
failed=0
fail() { echo "image: FAIL $*"; failed=1; }
ok() { echo "image: ok: $*"; }
note() { echo "image: note: $*"; }
# want WHAT GOT EXPECTED: one line of the checks.
want() { if [ "$2" = "$3" ]; then ok "$1: ${2:-none}"; else fail "$1: ${2:-none}, want ${3:-none}"; fi; }

# podman with everything it keeps in the work directory: images, containers, its run state and
# events. Two things stay global: its lock table (/dev/shm/libpod_lock) and blob cache
# (/var/lib/containers/cache), which podman places by itself.
store=$work/store
pod() {
  timeout 120 podman --root "$store/root" --runroot "$store/run" --tmpdir "$store/tmp" \
    --runtime runc --events-backend file --cgroup-manager cgroupfs "$@"
}
name=moonbridge-interop-$$
image_cleanup() {
  if [ -d "$store" ]; then
    pod rm -f -t 0 "$name" >/dev/null 2>&1 || true
    pod rmi -a -f >/dev/null 2>&1 || true
    # The overlay driver bind-mounts its directory on itself; any mount left under the store
    # goes before the directory does.
    awk -v s="$store/" 'index($2, s) == 1 {print $2}' /proc/mounts | sort -r | xargs -r -n1 umount -l || true
  fi
  cleanup
}
trap image_cleanup EXIT

# The bridge for ws and wss: the same release's moonbridge, from its archive.
tar -xzf "$archive" -C "$work" --strip-components 1 "moonbridge_${version}_linux_${arch}_boringssl/moonbridge"
bridge_bin=$work/moonbridge

# http_status URL: the HTTP status, or 000 when nothing answers.
http_status() {
  python3 -c 'import sys, urllib.request, urllib.error
try: print(urllib.request.urlopen(sys.argv[1], timeout=2).status)
except urllib.error.HTTPError as e: print(e.code)
except Exception: print("000")' "$1"
}

echo "image: loading $(basename "$tar") ($(podman --version), runc $(runc --version | awk 'NR==1{print $3}'))"
loaded=$(pod load -q -i "$tar" 2>&1) || { echo "image: FAIL podman load: $loaded"; exit 1; }
ref=${loaded#Loaded image: }
ref=${ref#Loaded image(s): }
ok "podman load: $ref, $(pod image inspect --format '{{.Os}}/{{.Architecture}}, user {{.User}}, entrypoint {{.Config.Entrypoint}} {{.Config.Cmd}}' "$ref")"
want "the image's user" "$(pod image inspect --format '{{.User}}' "$ref")" 65532:65532

# The config and the certificate, mounted read-only. The key belongs to the image's user, as
# an owner would give it (0400).
backend_old=$(free_port) backend_new=$(free_port) proxy=$(free_port) admin=$(free_port)
mkdir "$work/tls"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost -keyout "$work/tls/key.pem" -out "$work/tls/cert.pem" 2>/dev/null
chown 65532:65532 "$work/tls/key.pem" && chmod 0400 "$work/tls/key.pem"
cat >"$work/moonbridge.yml" <<EOF
log: {level: info, format: json}
admin: {listen: "127.0.0.1:$admin"}
tls: {cert: /etc/moonbridge/tls/cert.pem, key: /etc/moonbridge/tls/key.pem}
listeners:
  - {listen: "127.0.0.1:$proxy", protocols: [minecraft, ws, wss]}
routes:
  - {name: drain, hosts: [drain.interop], backends: ["127.0.0.1:$backend_new"]}
  - {name: play, hosts: ["*"], backends: ["127.0.0.1:$backend_old"]}
shutdown: {drain_timeout: ${drain_timeout}s, motd: "$motd"}
EOF
chmod 0644 "$work/moonbridge.yml"

node "$root/bench/interop/backend.js" "$backend_old" >"$work/backend-old.log" 2>&1 & pids+=($!)
node "$root/bench/interop/backend.js" "$backend_new" any >"$work/backend-new.log" 2>&1 & pids+=($!)
wait_port "$backend_old"; wait_port "$backend_new"

# Limits no higher than this shell's hard ones: podman's own (nofile 1048576) are more than a
# root without CAP_SYS_RESOURCE may set, and then the runtime cannot start the container.
nofile=$(ulimit -Hn); [ "$nofile" = unlimited ] || [ "$nofile" -gt 1048576 ] && nofile=1048576
run=(run --pull never --name "$name" --network host --read-only --read-only-tmpfs=false
  --stop-timeout "$stop_timeout" --cap-drop all --security-opt no-new-privileges --log-driver k8s-file
  -v "$work/moonbridge.yml:/etc/moonbridge/moonbridge.yml:ro" -v "$work/tls:/etc/moonbridge/tls:ro")
limits=(--ulimit "nofile=$nofile:$nofile" --ulimit nproc=4096:4096)
# Podman's defaults, once, so that the output says what they do here.
probe=$(pod run --rm --pull never --network host "$ref" --help 2>&1 >/dev/null | grep -m1 -E 'Error|error' || true)
if [ -n "$probe" ]; then
  note "with podman's default ulimits the container does not start: $probe"
  (( 0x$(awk '/^CapEff/{print $2}' /proc/self/status) >> 24 & 1 )) || # CAP_SYS_RESOURCE is bit 24
    note "this root lacks CAP_SYS_RESOURCE and its hard limits are nofile $(ulimit -Hn), nproc $(ulimit -Hu)"
fi
note "the run sets --ulimit nofile=$nofile:$nofile --ulimit nproc=4096:4096"
if crun=$(command -v crun); then
  crun_probe=$(pod --runtime "$crun" run --rm --pull never --network host "${limits[@]}" "$ref" --help 2>&1 >/dev/null | grep -m1 -E 'Error|error' || true)
  [ -n "$crun_probe" ] && note "crun (podman's default runtime) does not start it here: $crun_probe"
fi

cid=$(pod "${run[@]}" -d "${limits[@]}" "$ref") || { fail "podman run: $cid"; exit 1; }
for _ in $(seq 100); do [ "$(http_status "http://127.0.0.1:$admin/readyz")" = 200 ] && break; sleep 0.1; done
logs() { pod logs "$name" 2>&1; }
if [ "$(http_status "http://127.0.0.1:$admin/readyz")" != 200 ]; then
  fail "the container is not ready: $(pod inspect --format '{{.State.Status}} exit {{.State.ExitCode}}' "$name")"
  logs; exit 1
fi
ok "podman run ${cid:0:12}: /readyz 200; $(logs | grep -m1 -o '"message":"Data path[^"]*"')"
want "the container's stop timeout" "$(pod inspect --format '{{.Config.StopTimeout}}' "$name")" "$stop_timeout"
want "the listener's TLS provider" "$(logs | grep -m1 '"message":"Listening' | grep -o '"tls_provider":"[a-z]*"')" '"tls_provider":"boringssl"'
want "warnings that no certificate is configured" "$(logs | grep -c 'no tls.cert configured')" 0

# What the process is, seen from the host (fields of /proc/PID/status and mountinfo: 5 is the
# mount point, 6 its options).
pid=$(pod inspect --format '{{.State.Pid}}' "$name")
status=$(cat "/proc/$pid/status") mounts=$(cat "/proc/$pid/mountinfo")
field() { awk -v k="$1:" '$1 == k {$1 = ""; print substr($0, 2)}' <<<"$status"; }
want "process $pid's uids (real, effective, saved, fs)" "$(field Uid | tr -s '\t ' ' ')" "65532 65532 65532 65532"
want "its gids" "$(field Gid | tr -s '\t ' ' ')" "65532 65532 65532 65532"
want "its capabilities (effective, permitted, bounding)" "$(field CapEff) $(field CapPrm) $(field CapBnd)" \
  "0000000000000000 0000000000000000 0000000000000000"
want "its NoNewPrivs" "$(field NoNewPrivs)" 1
for m in / /etc/moonbridge/moonbridge.yml /etc/moonbridge/tls; do
  opts=$(awk -v m="$m" '$5 == m {print $6}' <<<"$mounts" | tail -1)
  [[ ,$opts, == *,ro,* ]] && opts=ro
  want "the mount at $m" "${opts:-none}" ro
done
want "writable mounts outside /proc, /sys and /dev" \
  "$(awk '$6 ~ /(^|,)rw(,|$)/ && $5 !~ /^\/(proc|sys|dev)(\/|$)/ {printf "%s ", $5}' <<<"$mounts")" ""
note "its open files limit: $(awk '/^Max open files/{print $4 " soft, " $5 " hard"}' "/proc/$pid/limits")"

# Play: tcp to the container, ws and wss through the bridge (wss checks the mounted certificate).
check() { node "$root/bench/interop/client.js" "$@" || failed=1; }
check "$proxy" "tcp"
declare -A bridge
bridge_args() { # SCHEME: the bridge's flags
  if [ "$1" = ws ]; then echo "--url ws://127.0.0.1:$proxy/mc"
  else echo "--url wss://localhost:$proxy/mc --connect 127.0.0.1:$proxy --ca $work/tls/cert.pem"; fi
}
for scheme in ws wss; do
  bridge[$scheme]=$(free_port)
  # shellcheck disable=SC2046 # the flags are words without spaces
  "$bridge_bin" client $(bridge_args "$scheme") --listen "127.0.0.1:${bridge[$scheme]}" \
    --log-format json --log-level warn >"$work/bridge-$scheme.log" 2>&1 & pids+=($!)
  wait_port "${bridge[$scheme]}"
  check "${bridge[$scheme]}" "$scheme via moonbridge client"
done

# SIGHUP reads the mounted config again.
pod kill --signal HUP "$name" >/dev/null
for _ in $(seq 50); do logs | grep -qF 'SIGHUP: configuration reloaded' && break; sleep 0.1; done
want "reloads after podman kill --signal HUP" "$(logs | grep -cF 'SIGHUP: configuration reloaded')" 1

# The drain: two players stay on until it ends.
declare -A player
for via in tcp wss; do
  port=$proxy; [ "$via" = wss ] && port=${bridge[wss]}
  node "$root/bench/interop/transfer.js" --name "drain-$via" --port "$port" --version 1.21.4 --host drain.interop \
    --stay >"$work/drain-$via.out" 2>&1 & player[$via]=$!
done
for _ in $(seq 300); do
  [ "$(cat "$work"/drain-*.out | grep -c ': ready:')" = 2 ] && break
  for via in "${!player[@]}"; do kill -0 "${player[$via]}" 2>/dev/null || break 2; done
  sleep 0.1
done
cat "$work"/drain-*.out
echo "image: podman stop (SIGTERM; drain_timeout ${drain_timeout}s, --stop-timeout ${stop_timeout}s)"
started=$(date +%s.%N)
pod stop "$name" >"$work/stop.out" 2>&1 & stopper=$!
readyz=000
for _ in $(seq 50); do readyz=$(http_status "http://127.0.0.1:$admin/readyz"); [ "$readyz" = 503 ] && break; sleep 0.05; done
want "/readyz while draining" "$readyz" 503
for via in tcp wss; do
  wait "${player[$via]}" || failed=1
  grep -v ': ready:' "$work/drain-$via.out" || true
  want "drain-$via's Disconnect carries shutdown.motd" "$(grep -cF "$motd" "$work/drain-$via.out")" 1
done
wait "$stopper" || fail "podman stop: $(cat "$work/stop.out")"
took=$(awk -v s="$started" -v e="$(date +%s.%N)" 'BEGIN {printf "%.1f", e - s}')
want "the container's exit code" "$(pod inspect --format '{{.State.ExitCode}}' "$name")" 0
# The stop lasts the drain, and ends well before podman would send SIGKILL.
want "the stop took ${took}s: between the drain (${drain_timeout}s) and podman's SIGKILL (${stop_timeout}s)" \
  "$(awk -v t="$took" -v d="$drain_timeout" -v k="$stop_timeout" 'BEGIN {print (t >= d - 0.5 && t < k - 1) ? "yes" : "no"}')" yes
want "the drained line" "$(logs | grep -F '"message":"drained"' | grep -o '"ended":[0-9]*,"closed":[0-9]*,"transferred":[0-9]*,"told":[0-9]*')" \
  '"ended":0,"closed":2,"transferred":0,"told":2'
[ "$failed" = 0 ] || { echo "image: the container's log:"; logs; tail -n 20 "$work"/*.log; } >&2
exit $failed
