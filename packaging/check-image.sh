#!/usr/bin/env bash
# Checks the container image in DIST against the linux boringssl binaries in DIST's archives:
# both architectures in one index, user, entry point, ports, labels, times, and every file of
# every layer (packaging/image.sh check, which reads the image back with go-containerregistry).
#
#   packaging/check-image.sh DIST
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dist=$(cd "${1:?usage: check-image.sh DIST}" && pwd)
image="$dist/moonbridge_${DIST_VERSION:?set by dist.mk}_oci-image.tar"
[ -f "$image" ] || { echo "dist-check: FAIL no $(basename "$image") in $dist; run make dist again" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

binaries=()
for arch in amd64 arm64; do
  name="moonbridge_${DIST_VERSION}_linux_${arch}_boringssl"
  tar -xzf "$dist/$name.tar.gz" -C "$work" "$name/moonbridge"
  binaries+=("$work/$name/moonbridge")
done
out=$("$here/image.sh" check "$image" "${binaries[@]}") || { echo "dist-check: FAIL the image" >&2; exit 1; }
echo "dist-check: ok  $out"
