#!/bin/bash
# Runs of bench/results/2026-11-30-idle-session-fields.md.
cd /tmp/lb/if
for round in 1 2 3 4; do
  order="base cand"; [ $((round % 2)) = 0 ] && order="cand base"
  for t in tcp ws wss; do
    for v in $order; do
      bin=/tmp/lb/mb-4cb1a26; [ $v = cand ] && bin=/tmp/lb/mb-3b24aea
      echo "### idle $t $v round $round $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" >>raw.txt
      /tmp/lb/mbbench-new run --serve $bin --serve-arg=--config --serve-arg=loop1.yml --transport $t --tls-provider boringssl \
        --profile modded --idle 2000 --idle-settle 3s 2>&1 | grep -v '"session ended"' | grep -v '^{"level"' >>raw.txt
    done
  done
done
echo "### done $(date -u +%H:%M:%S)" >>raw.txt
