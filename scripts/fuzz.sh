#!/usr/bin/env bash
# fuzz.sh [build flags...]: runs every fuzz target of the module that the build flags select
# (-tags boringssl adds the BoringSSL ones) for FUZZTIME each (default 10s), one target after
# another (go test -fuzz takes one target per run), each with FUZZ_PARALLEL workers (default 1:
# it runs beside the other parts of make test). The whole log is build/test-fuzz.log; this
# prints one line per target, the output of each that failed, and the count line
# "fuzz: N passed, N failed, 0 skipped" (CI reads it).
#
# A target that fails leaves its input in PACKAGE/testdata/fuzz/TARGET/: fix the code, then
# commit that file, which go test runs from then on as a regression case.
#
# Go 1.26's fuzz coordinator can fail a target with a bare "context deadline exceeded" as the
# fuzz time ends, when a loaded machine keeps a worker from stopping in time (golang/go#75804,
# fixed in Go 1.27): no input was found and none is written. Such a run alone is run again, up
# to twice (once was not always enough: the race hit one target twice in a row on an idle
# machine), and counts as failed if it fails each time; a run that wrote an input or printed
# anything else fails at once.
set -uo pipefail
fuzztime=${FUZZTIME:-10s}
parallel=${FUZZ_PARALLEL:-1}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
build=$(cd "$here/.." && pwd)/build
mkdir -p "$build"
log=$build/test-fuzz.log
: >"$log"

# targets: one "IMPORT-PATH TARGET" line per fuzz target, read from the test files the build
# flags select (go list applies the build tags; nothing is compiled).
targets() {
  go list "$@" -f '{{$d := .Dir}}{{range .TestGoFiles}}{{$.ImportPath}} {{$d}}/{{.}}{{"\n"}}{{end}}{{range .XTestGoFiles}}{{$.ImportPath}} {{$d}}/{{.}}{{"\n"}}{{end}}' ./... |
    while read -r pkg file; do
      [ -n "$pkg" ] || continue
      { grep -oE '^func Fuzz[A-Za-z0-9_]*' "$file" || true; } | sed "s|^func |$pkg |"
    done | sort -u
}

list=$(targets "$@") || { echo "fuzz.sh: go list failed" >&2; exit 2; }
[ -n "$list" ] || { echo "fuzz.sh: no fuzz target found" >&2; exit 2; }
# fuzz PKG NAME [build flags...]: one run of one target; its output in $out, its status returned.
fuzz() {
  local pkg=$1 name=$2
  shift 2
  out=$(go test "$@" -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" -parallel "$parallel" "$pkg" 2>&1)
  local status=$?
  printf '=== %s %s\n%s\n' "$pkg" "$name" "$out" >>"$log"
  return $status
}

# coordinator_race: whether $out is the coordinator's deadline race alone (see above).
coordinator_race() {
  grep -q '^    context deadline exceeded$' <<<"$out" &&
    ! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' <<<"$out"
}

passed=0 failed=0
while read -r pkg name; do
  fuzz "$pkg" "$name" "$@"
  status=$?
  for _ in 1 2; do
    [ $status -ne 0 ] && coordinator_race || break
    echo "again $pkg $name: the fuzz coordinator's deadline race (golang/go#75804), no input found"
    fuzz "$pkg" "$name" "$@"
    status=$?
  done
  if [ $status -eq 0 ]; then
    passed=$((passed + 1))
    echo "ok   $pkg $name"
  else
    failed=$((failed + 1))
    echo "FAIL $pkg $name"
    grep -vE '^fuzz: elapsed' <<<"$out" | head -n 40
  fi
done <<<"$list"
echo "fuzz: $passed passed, $failed failed, 0 skipped"
[ $failed -eq 0 ]
