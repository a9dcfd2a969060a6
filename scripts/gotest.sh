#!/usr/bin/env bash
# gotest.sh LABEL [go test args...]: runs go test -json in the current directory's module, keeps
# its events in build/test-LABEL.json and their readable output in build/test-LABEL.log (the
# repository's build/ also for deploy/'s module), and prints go test's closing lines,
# failures, each skip with its t.Skip message, and the count line "LABEL: N passed, N failed,
# N skipped" (CI reads it).
#
# A skip fails the run unless scripts/expected-skips.txt lists it for LABEL: a test that skips
# because something is missing on the machine (openssl, a readable /proc) has not passed.
set -uo pipefail
label=$1; shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
expected=$here/expected-skips.txt
build=$(cd "$here/.." && pwd)/build
mkdir -p "$build"
events=$build/test-$label.json
log=$build/test-$label.log
# stderr holds what go says outside the events (a module download, a vet error).
go test -json "$@" >"$events" 2>"$log.stderr"
status=$?
# fromjson? drops any line that is not an event.
jq -jnR 'inputs | fromjson? | select(.Action == "output" or .Action == "build-output") | .Output' \
  "$events" >"$log"
cat "$log.stderr" >>"$log" && rm -f "$log.stderr"

# Closing lines per package, and everything around a failure.
grep -E '^(ok|FAIL|panic:|---? FAIL)' "$log" | grep -v '\[no tests to run\]$' || true
if [ $status -ne 0 ]; then
  echo "--- $label: failures (full log: $log)"
  grep -E -B2 -A20 -- '--- FAIL' "$log" | head -n 200
  # A package that does not compile has no test to fail: show what the compiler said.
  jq -jnR 'inputs | fromjson? | select(.Action == "build-output") | .Output' "$events" | head -n 50
fi

# count ACTION: how many tests (subtests included) ended with that action.
count() { jq -nR --arg a "$1" '[inputs | fromjson? | select(.Test != null and .Action == $a)] | length' "$events"; }
passed=$(count pass) failed=$(count fail) skipped=$(count skip)

# skips: one "package<TAB>test<TAB>message" line per skipped test. t.Skip logs its message as
# the test's last "file.go:N: " line before the test ends, so keep each test's latest such line.
skips() {
  jq -rnR --arg mod "$(go list -m)" '
    foreach (inputs | fromjson? | select(.Test != null)) as $e ({};
      if $e.Action == "output" and ($e.Output | test("^ +[^ ]+\\.go:[0-9]+: ")) then
        .[$e.Package + " " + $e.Test] = ($e.Output | sub("^ +[^ ]+\\.go:[0-9]+: "; "") | rtrimstr("\n"))
      else . end;
      if $e.Action == "skip" then
        [($e.Package | ltrimstr($mod) | ltrimstr("/") | if . == "" then "." else . end),
         $e.Test, (.[$e.Package + " " + $e.Test] // "(no message)")] | @tsv
      else empty end)' "$events"
}

# match_expected: marks each skip line that the list does not allow for LABEL. The list's lines
# are "LABEL PACKAGE TEST-REGEXP WHY...", the regexp matched against the whole test name.
match_expected() {
  awk -F'\t' -v label="$label" -v list="$expected" '
    BEGIN {
      while ((getline line <list) > 0) {
        if (line ~ /^[ \t]*(#|$)/) continue
        split(line, f, /[ \t]+/)
        if (f[1] == label) { n++; pkg[n] = f[2]; re[n] = f[3] }
      }
    }
    {
      ok = 0
      for (i = 1; i <= n; i++) if ($1 == pkg[i] && $2 ~ ("^(" re[i] ")$")) ok = 1
      printf "  %s %s: %s%s\n", $1, $2, $3, ok ? "" : "  <- UNEXPECTED"
    }'
}

unexpected=0
if [ "$skipped" -gt 0 ]; then
  echo "--- $label: skipped tests and why"
  report=$(skips | match_expected) || { echo "gotest.sh: cannot read the skips from $events" >&2; exit 2; }
  echo "$report"
  unexpected=$(grep -c '  <- UNEXPECTED$' <<<"$report")
fi
if [ "$unexpected" -gt 0 ]; then
  echo "--- $label: $unexpected skip(s) not listed in ${expected#"$PWD"/}: fails"
  [ $status -ne 0 ] || status=1
fi
echo "$label: $passed passed, $failed failed, $skipped skipped"
exit $status
