#!/bin/bash
# Series 4 of bench/results/2026-12-01-cores.md (the amendment): paced players, one loop and one
# per core, 8 pairs in alternating order. Same MB, BB and W as run.sh (run it first: it writes
# the configs).
set -u
: "${MB:?}" "${BB:?}" "${W:?}"
cd "$W" || exit 1
load() { echo "$(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"; }
step() { # variant config count pair
  echo "### ladder $1 $3 pair $4 $(load)" | tee -a ladder-raw.txt
  "$BB" ladder --scenarios play --counts "$3" --window 10s --interval 2.5s --direct-players 100 \
    --gen-max-share 1 --serve ./mb-plain --serve-arg=--config --serve-arg="$2" >"ladder-$1-$3-$4.txt" 2>&1
  echo "exit $?" >>ladder-raw.txt
  grep -v '"session ended"' "ladder-$1-$3-$4.txt" | grep -v '^{"level' >>ladder-raw.txt
}
for count in 250 1000; do
  for pair in 1 2 3 4 5 6 7 8; do
    if [ $((pair % 2)) = 1 ]; then
      step l1 loops1.yml "$count" "$pair"; step lN loops0.yml "$count" "$pair"
    else
      step lN loops0.yml "$count" "$pair"; step l1 loops1.yml "$count" "$pair"
    fi
  done
done
echo "### done $(load)" | tee -a ladder-raw.txt
