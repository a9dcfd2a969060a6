#!/usr/bin/env bash
# gotest.sh LABEL [go test args...]: runs go test -v, keeps the full log in build/test-LABEL.log
# and prints go test's closing lines, failures, each skip with its reason, and a count line.
set -uo pipefail
label=$1; shift
mkdir -p build
log=build/test-$label.log
go test -v "$@" >"$log" 2>&1
status=$?
# Closing lines per package, and everything around a failure.
grep -E '^(ok|FAIL|panic:|---? FAIL|\?)' "$log" | grep -v '^?' || true
if [ $status -ne 0 ]; then
  echo "--- $label: failures (full log: $log)"
  grep -E -B2 -A20 -- '--- FAIL' "$log" | head -n 200
fi
passed=$(grep -cE '^\s*--- PASS' "$log")
failed=$(grep -cE '^\s*--- FAIL' "$log")
skipped=$(grep -cE '^\s*--- SKIP' "$log")
if [ "$skipped" -gt 0 ]; then
  echo "--- $label: skipped tests and why"
  # go test -v streams a test's log lines (file.go:N: why) after its "=== RUN/CONT/NAME" line;
  # the "--- SKIP: Name" summary comes later, so remember each test's first log line.
  awk '/^=== (RUN|CONT|NAME|PAUSE) / { current = $3; next }
       /^ +[^ ]+\.go:[0-9]+: / && !(current in reason) { r = $0; sub(/^ *[^ ]+\.go:[0-9]+: /, "", r); reason[current] = r }
       /^ *--- SKIP: / { print "  " $3 ": " reason[$3] }' "$log"
fi
echo "$label: $passed passed, $failed failed, $skipped skipped"
exit $status
