#!/bin/bash
# heap.sh BIN CONFIG TRANSPORT OUT: 5000 idle sessions, heap profile once they are all in.
bin=$1; cfg=$2; t=$3; out=$4
nice -n 10 ./mbbench run --serve $bin --serve-arg=--config --serve-arg=$cfg --transport $t --tls-provider boringssl \
  --profile modded --idle 5000 --idle-settle 25s 2>&1 | grep -v '"session ended"' | grep -v '^{"level"' >$out.raw.txt &
pid=$!
sleep 5
for i in $(seq 1 120); do
  n=$(curl -s 127.0.0.1:19640/metrics | grep "^moonbridge_sessions_active" | awk '{s+=$NF} END {print s+0}')
  [ "${n%.*}" -ge 5000 ] 2>/dev/null && break
  sleep 1
done
sleep 3
curl -s -o $out.heap "127.0.0.1:19640/debug/pprof/heap?gc=1"
echo "sessions $n at $(date -u +%T)" >>$out.raw.txt
wait $pid
