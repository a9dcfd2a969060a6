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
  # go test -v prints a skip's reason (file.go:N: why) on the line before "--- SKIP: Name".
  awk '/^ *--- SKIP: /{ name=$3; sub(/^ *[^ ]+:[0-9]+: /, "", reason); print "  " name ": " reason; next }
       { reason=$0 }' "$log"
fi
echo "$label: $passed passed, $failed failed, $skipped skipped"
exit $status
