#!/usr/bin/env bash
# changed-packages.sh [BASE]: the import paths of the module's packages that a change touches,
# one a line, for `make test-quick`: every package with a file (Go source, testdata, an
# embedded asset) that differs from BASE (default main) in the work tree, committed or not, or is
# untracked, and every package that imports one of them, directly or not, tests included. A
# change of go.mod or go.sum touches every package; files outside the packages (docs/, native/,
# scripts/) touch none. It prints nothing when nothing is touched.
set -euo pipefail
base=${1:-main}
cd "$(git rev-parse --show-toplevel)"
export CGO_ENABLED=0

changed=$( { git diff --name-only "$base" --; git ls-files --others --exclude-standard; } | sort -u)
if grep -qx -e go.mod -e go.sum <<<"$changed"; then
  go list ./...
  exit 0
fi

# Each changed file's nearest directory that is a package of this module (testdata/ and other
# folders inside a package belong to it).
module=$(go list -m)
declare -A dirs=()
while IFS= read -r file; do
  [ -n "$file" ] || continue
  dir=$(dirname "$file")
  while [ "$dir" != . ] && ! compgen -G "$dir/*.go" >/dev/null; do dir=$(dirname "$dir"); done
  case "$dir" in deploy | deploy/* | test/kubeapi | test/kubeapi/*) continue ;; esac # modules of their own
  [ "$dir" != . ] || compgen -G "*.go" >/dev/null || continue
  dirs[$dir]=1
done <<<"$changed"
[ ${#dirs[@]} -gt 0 ] || exit 0
seeds=$(for d in "${!dirs[@]}"; do echo "$module/${d#./}"; done | sed 's|/\.$||')

# Reverse imports (tests' included), closed transitively from the seeds.
go list -f '{{.ImportPath}}{{range .Imports}} {{.}}{{end}}{{range .TestImports}} {{.}}{{end}}{{range .XTestImports}} {{.}}{{end}}' ./... |
  awk -v seeds="$seeds" '
    { pkg[$1] = 1; for (i = 2; i <= NF; i++) importers[$i] = importers[$i] " " $1 }
    END {
      n = split(seeds, queue, "\n")
      for (i = 1; i <= n; i++) hit[queue[i]] = 1
      for (i = 1; i <= n; i++) {
        m = split(importers[queue[i]], up, " ")
        for (j = 1; j <= m; j++) if (!(up[j] in hit)) { hit[up[j]] = 1; queue[++n] = up[j] }
      }
      for (p in hit) if (p in pkg) print p
    }' | sort
