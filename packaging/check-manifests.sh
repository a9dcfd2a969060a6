#!/usr/bin/env bash
# Checks the package-manager manifests in DIST against DIST/SHA256SUMS and the archives
# (packaging/manifests.sh check: each parsed, every download's hash equal to SHA256SUMS's, each
# archive there and holding the binary the manifest installs), then the formula's Ruby syntax
# with `ruby -c` where ruby is installed; where it is not, it says that this part did not run.
#
#   packaging/check-manifests.sh DIST
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dist=$(cd "${1:?usage: check-manifests.sh DIST}" && pwd)
fail() { echo "dist-check: FAIL $*" >&2; exit 1; }

out=$("$here/manifests.sh" check "$dist") || fail "the package-manager manifests"
sed 's/^/dist-check: ok  /' <<<"$out"
formula=$dist/homebrew/moonbridge.rb
if command -v ruby >/dev/null; then
  syntax=$(ruby -c "$formula" 2>&1) || fail "homebrew/moonbridge.rb: ruby -c: $syntax"
  echo "dist-check: ok  homebrew/moonbridge.rb: ruby -c: $syntax"
else
  echo "dist-check: NOT CHECKED homebrew/moonbridge.rb's Ruby syntax: ruby is not installed"
fi
