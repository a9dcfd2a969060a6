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
  grep -E -A1 '^\s*--- SKIP' "$log" | grep -vE '^(--)$' | paste - - | sed -E 's/^\s*--- SKIP: ([^ ]+).*\t\s*/  \1: /'
fi
echo "$label: $passed passed, $failed failed, $skipped skipped"
exit $status
