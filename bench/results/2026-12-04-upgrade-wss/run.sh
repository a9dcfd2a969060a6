#!/bin/bash
# Runs of bench/results/2026-12-04-upgrade-wss.md, in the rule's order.
cd "$(dirname "$0")"
run() { # name extra-args
  echo "=== $1 $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> series.txt
  /tmp/lp/mbbench4 handover --serve /tmp/lp/mb-wss --tcp 334 --ws 333 --wss 333 $2 --exit-wait 45s --json "$1.json" > "$1.out" 2> "$1.err"
  echo "    end $(date -u +%T) rc=$? load: $(cut -d' ' -f1-3 /proc/loadavg)" >> series.txt
}
run W1 ""; run W2 ""; run W3 ""; run W10 "--upgrades 10 --spacing 5s"
