#!/bin/bash
# The runs of the flood fairness record (bench/results/2026-12-04-flood-fairness.md): one
# attacker (one address, or one /24) against the attack mode and against the login meter, a
# player in another /24 beside it, on the build before the fairness changes (OLD) and after
# (NEW), with `mbbench flood-fair`; and a spread flood that must still turn the attack mode on.
# Loopback only (127.x.y.z sources are distinct /24s). The four runs of a case start together,
# 10 s apart, so that their bursts do not overlap; about 6 minutes a repeat on 2 cores. A repeat
# that would start past STOP_AFTER minutes is skipped. Raw output (a load line, then mbbench's
# and moonbridge's stderr) and one JSON report per run are written beside this script, the
# table (fairness.md) from summarise.py.
#
# Run from the repository's root. Environment:
#   NEW      moonbridge binary after (default: a pure-Go build of this tree, in $TMPDIR)
#   OLD      moonbridge binary before (default: a pure-Go build of b4f9735, through a git
#            worktree in $TMPDIR)
#   MB       mbbench (default: a build of this tree)
#   REPEATS  repeats of every case (3); STOP_AFTER minutes (35)
set -euo pipefail
ulimit -n "$(ulimit -Hn)"
R=$(cd "$(dirname "$0")" && pwd)
REPEATS=${REPEATS:-3}
STOP_AFTER=${STOP_AFTER:-35}
OLD_REV=b4f9735
T0=$(date +%s)
TMP=$(mktemp -d)
trap 'git worktree remove --force "$TMP/old" 2>/dev/null || true; rm -rf "$TMP"' EXIT

build() { nice -n 15 env CGO_ENABLED=0 go build -o "$@"; }
if [ -z "${MB:-}" ]; then MB=$TMP/mbbench; build "$MB" ./cmd/mbbench; fi
if [ -z "${NEW:-}" ]; then NEW=$TMP/moonbridge-new; build "$NEW" ./cmd/moonbridge; fi
if [ -z "${OLD:-}" ]; then
  git worktree add --detach "$TMP/old" "$OLD_REV" >/dev/null
  OLD=$TMP/moonbridge-old
  (cd "$TMP/old" && build "$OLD" ./cmd/moonbridge)
fi

# No block list: the login meter alone against the attacker (a blocked attacker never reaches it).
NOBLOCK="$R/no-block.yml"
printf 'defence:\n  block:\n    after: 0\n' >"$NOBLOCK"

# The cases' flags (decision rule in the record).
ONE_ADDR="--source-networks 1 --source-hosts 1"
ONE_24="--source-networks 1 --source-hosts 0"
ATTACK="--class idle --rate 2500 --max-open 5000 --hold 1s --burst 1.5s --every 48s --bursts 3 --tail 5s --probe ping --probe-every 1s"
SPREAD="--class idle --rate 2500 --max-open 5000 --hold 1s --burst 3s --bursts 1 --tail 5s --probe ping --probe-every 1s --source-networks 4096 --source-hosts 0"
METER="--class noaccount --rate 200 --max-open 50 --hold 25s --burst 60s --every 60s --bursts 1 --tail 1s --probe login --probes 8 --probe-every 5s --probe-from 12s"

load() { echo "# $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
# run NAME BINARY FLAGS...: one mbbench flood-fair, its JSON report and raw output here.
run() {
  local n=$1 bin=$2; shift 2
  load >"$R/$n.raw.txt"
  nice -n 10 "$MB" flood-fair --serve "$bin" "$@" >"$R/$n.json" 2>>"$R/$n.raw.txt" ||
    echo "$n: mbbench flood-fair failed (see $n.raw.txt)" >&2
  echo "$n done $(date -u +%H:%M:%S)"
}
# four NAME FLAGS...: new and old, one address and one /24, started 10 s apart.
four() {
  local n=$1; shift
  run "$n-new-addr" "$NEW" $ONE_ADDR "$@" & sleep 10
  run "$n-old-addr" "$OLD" $ONE_ADDR "$@" & sleep 10
  run "$n-new-24" "$NEW" $ONE_24 "$@" & sleep 10
  run "$n-old-24" "$OLD" $ONE_24 "$@" &
  wait
}

for i in $(seq 1 "$REPEATS"); do
  if [ $(( ($(date +%s) - T0) / 60 )) -ge "$STOP_AFTER" ]; then echo "repeat $i skipped: past $STOP_AFTER minutes" >&2; break; fi
  four "r$i-attack" $ATTACK
  run "r$i-spread-new" "$NEW" $SPREAD & sleep 10
  run "r$i-spread-old" "$OLD" $SPREAD
  wait
  four "r$i-meter" $METER
  four "r$i-meter-noblock" $METER --config-extra "$NOBLOCK"
done
python3 "$R/summarise.py" "$R" >"$R/fairness.md"
echo "fairness done $(date -u +%H:%M:%S), $(( ($(date +%s) - T0) / 60 )) minutes"
