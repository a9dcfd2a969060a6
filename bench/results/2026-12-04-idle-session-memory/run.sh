#!/bin/bash
# Runs of bench/results/2026-12-04-idle-session-memory.md: run.sh OUT VARIANT... (rounds 1-3,
# the variants' order rotating by round). Binaries and configs in /tmp/idle.
cd /tmp/idle
out=$1; shift
variants=("$@")
for round in 1 2 3; do
  order=("${variants[@]:$(( (round-1) % ${#variants[@]} ))}" "${variants[@]:0:$(( (round-1) % ${#variants[@]} ))}")
  for t in tcp ws wss; do
    for v in "${order[@]}"; do
      cfg=new.yml; [ $v = old ] && cfg=old.yml
      echo "### idle $t $v round $round $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" >>$out
      nice -n 10 ./mbbench run --serve ./mb-$v --serve-arg=--config --serve-arg=$cfg --transport $t --tls-provider boringssl \
        --profile modded --idle 5000 --idle-settle 3s 2>&1 | grep -v '"session ended"' | grep -v '^{"level"' >>$out
    done
  done
done
echo "### done $(date -u +%H:%M:%S)" >>$out
