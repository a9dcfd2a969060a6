#!/usr/bin/env bash
# check-alloc-names.sh PATTERN: fails when a test that calls testing.AllocsPerRun is not named
# with PATTERN, so `go test -run PATTERN` (the allocation pass of `make test`, which runs without
# -race) selects every allocation test.
set -euo pipefail
pattern=${1:?usage: check-alloc-names.sh PATTERN}
cd "$(dirname "${BASH_SOURCE[0]}")/.."
git ls-files -z --cached --others --exclude-standard '*_test.go' | xargs -0 awk -v pattern="$pattern" '
  FNR == 1 { name = "" }
  /^func / { name = $2; sub(/\(.*/, "", name) }
  /testing\.AllocsPerRun\(/ && name ~ /^Test/ && name !~ pattern {
    printf "%s: %s calls testing.AllocsPerRun but its name lacks %s\n", FILENAME, name, pattern
    bad = 1
  }
  END { exit bad }' >&2
