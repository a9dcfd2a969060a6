#!/usr/bin/env bash
# Writes or checks the package-manager manifests in DIST (deploy/cmd/mkmanifests, in the deploy/
# module): scoop/moonbridge.json, winget/<DIST_WINGET_ID>/ (the version, installer and
# defaultLocale manifests, manifest version 1.6.0) and homebrew/moonbridge.rb, each with the
# sha256 that DIST/SHA256SUMS gives its archives. write runs after dist.sh has written SHA256SUMS,
# which therefore does not list the manifests: they carry DIST_URL, the owner's download site,
# which is not part of the build. check reads them back against SHA256SUMS and the archives.
#
#   packaging/manifests.sh write|check DIST
#
# write needs DIST_URL, DIST_HOMEPAGE and DIST_WINGET_ID, check only DIST_VERSION (dist.mk sets
# them all).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 2 ] || { echo "manifests.sh: usage: manifests.sh write|check DIST" >&2; exit 2; }
mode=$1 dist=$(cd "$2" && pwd)
: "${DIST_VERSION:?set by dist.mk}"
args=()
case "$mode" in
  write)
    args=(--url "${DIST_URL:?set by dist.mk}" --homepage "${DIST_HOMEPAGE:?set by dist.mk}"
      --winget-id "${DIST_WINGET_ID:?set by dist.mk}")
    ;;
  check) ;;
  *) echo "manifests.sh: usage: manifests.sh write|check DIST" >&2; exit 2 ;;
esac

"${GO:-go}" -C "$root/deploy" run ./cmd/mkmanifests "$mode" --dist "$dist" --version "$DIST_VERSION" "${args[@]}"
