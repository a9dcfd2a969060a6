#!/bin/bash
# The generator's cost per connection, engine by engine, class by class (the record's
# "Profile"): mbbench flood with 2 players and 1 direct player (so that mbbench's CPU is the
# flood's), each step 3 s, at nice 19 on a machine other helpers shared. Run from the
# repository's root after `make build mbbench`. Per run a JSON report and the raw output; one
# perf profile (system-wide, 3 s in the middle of a step) per engine for malformed at 5,000/s,
# per TLS client for ping over wss at 1,000/s, and for tlshello at 1,000/s.
set -euo pipefail
ulimit -n "$(ulimit -Hn)"
R=$(dirname "$0")/profile
mkdir -p "$R"
MB=bin/mbbench
C="--serve bin/moonbridge --backend 127.0.0.1:0 --duration 3s --warmup 1s --cooldown 1s --hold 4s --max-open 12000 --players 2 --direct-players 1 --json"
run() {
  local n=$1; shift
  echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" >"$R/$n.raw.txt"
  nice -n 19 $MB flood $C "$@" >"$R/$n.json" 2>>"$R/$n.raw.txt" || echo "$n failed" >&2
}
# perf NAME FLAGS...: run, and profile the whole machine for 3 s from 1 s into the flood (its
# warm-up of 1 s after the players logged in, then 1 s); reported for this run's mbbench and
# moonbridge by PID (other helpers' processes have the same names).
perfrun() {
  local n=$1; shift
  rm -f "$R/$n.raw.txt"
  run "$n" "$@" &
  local job=$!
  until grep -q "logged in; flooding" "$R/$n.raw.txt" 2>/dev/null; do sleep 0.1; done
  sleep 2
  local relay gen
  relay=$(grep -o '(pid [0-9]*)' "$R/$n.raw.txt" | head -1 | tr -dc 0-9)
  gen=$(ps -o ppid= -p "$relay" | tr -dc 0-9 || true)
  perf record -F 499 -a -g -o "$R/$n.perf" -- sleep 3 >/dev/null 2>&1 || true
  local gtids rtids # the processes' threads, read while they still run
  gtids=$(ls "/proc/$gen/task" | paste -sd,)
  rtids=$(ls "/proc/$relay/task" | paste -sd,)
  wait $job
  {
    echo "# samples by thread (all of the machine's; mbbench $gen and moonbridge $relay are this run's)"
    perf report -i "$R/$n.perf" --no-children --sort pid --stdio -g none 2>/dev/null | grep '%' | head -12 || true
    for p in "mbbench:$gen:$gtids" "moonbridge:$relay:$rtids"; do
      IFS=: read -r name pid tids <<<"$p"
      echo "# $name (pid $pid): symbols, with children, share of its own samples"
      perf report -i "$R/$n.perf" --tid "$tids" --children --percentage relative --sort sym --stdio -g none 2>/dev/null | grep -E '%|Samples' | head -70 || true
    done
  } >"$R/$n.perf.txt"
  rm -f "$R/$n.perf"
}

for e in go epoll; do
  run "tcp-$e" --engine $e --via tcp --classes idle,malformed,ping,offline --rates 1,5000
  run "ws-$e" --engine $e --via ws --classes ping,offline --rates 5000
  perfrun "perf-malformed-$e" --engine $e --via tcp --classes malformed --rates 5000 --duration 8s
done
for t in default x25519 resume; do
  run "wss-$t" --engine go --via wss --tls-client $t --classes ping --rates 1000
done
run "wss-tlshello" --engine epoll --via wss --classes tlshello --rates 1000,5000
for t in default x25519 resume; do
  perfrun "perf-wss-$t" --engine go --via wss --tls-client $t --classes ping --rates 1000 --duration 8s
done
perfrun "perf-tlshello" --engine epoll --via wss --classes tlshello --rates 1000 --duration 8s
