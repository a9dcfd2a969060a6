#!/bin/bash
# Runs of bench/results/2026-12-04-upgrade-online.md, in the rule's order.
cd "$(dirname "$0")"
run() { # name extra-args
  echo "=== $1 $(date -u +%T) load: $(cut -d' ' -f1-3 /proc/loadavg)" >> series.txt
  /tmp/lo/mbbench handover --serve /tmp/lo/moonbridge --tcp 334 --ws 333 --wss 333 --auth online $2 --exit-wait 45s --json "$1.json" --log "$1.log" > "$1.out" 2> "$1.err"
  echo "    end $(date -u +%T) rc=$? load: $(cut -d' ' -f1-3 /proc/loadavg)" >> series.txt
}
run O1 ""; run O2 ""; run O3 ""; run O10 "--upgrades 10 --spacing 5s"
