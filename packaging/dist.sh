#!/usr/bin/env bash
# Builds every target of the dist matrix into OUTDIR: one archive per target, a .deb and an .rpm
# for each boringssl target, the container image of the two linux boringssl binaries
# (moonbridge_<version>_oci-image.tar, packaging/image.sh), SHA256SUMS over all of it, and then
# the package-manager manifests in scoop/, winget/ and homebrew/ (packaging/manifests.sh), made
# from SHA256SUMS and so not listed in it.
# dist.mk holds the matrix; it must include linux/amd64/boringssl and linux/arm64/boringssl.
#
#   packaging/dist.sh NFPM OUTDIR STAGE OS/ARCH/FLAVOUR...
#
# Names say OS, architecture and flavour: moonbridge_<version>_<os>_<arch>_<flavour>.<ext>.
# Needs DIST_VERSION, DIST_LDFLAGS and SOURCE_DATE_EPOCH in the environment, and DIST_URL,
# DIST_HOMEPAGE and DIST_WINGET_ID for the manifests (dist.mk sets them all).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
[ $# -ge 4 ] || { echo "dist.sh: usage: dist.sh NFPM OUTDIR STAGE OS/ARCH/FLAVOUR..." >&2; exit 2; }
nfpm=$1 outdir=$2 stage=$3
shift 3
: "${DIST_VERSION:?set by dist.mk}"

rm -rf "$outdir" "$stage"
mkdir -p "$outdir" "$stage"
for target in "$@"; do
  IFS=/ read -r os arch flavour <<<"$target"
  name="moonbridge_${DIST_VERSION}_${os}_${arch}_${flavour}"
  started=$SECONDS
  "$here/build-binary.sh" "$os" "$arch" "$flavour" "$stage/$name"
  "$here/archive.sh" "$os" "$stage/$name" "$name" "$outdir" >/dev/null
  if [ "$flavour" = boringssl ]; then
    "$here/packages.sh" "$nfpm" "$arch" "$stage/$name" "$outdir" "$name" >/dev/null
  fi
  echo "dist: $target in $((SECONDS - started))s" >&2
done
started=$SECONDS
linux="$stage/moonbridge_${DIST_VERSION}_linux"
"$here/image.sh" build "$outdir/moonbridge_${DIST_VERSION}_oci-image.tar" "${linux}_amd64_boringssl" "${linux}_arm64_boringssl"
echo "dist: container image in $((SECONDS - started))s" >&2
(cd "$outdir" && sha256sum -- * >SHA256SUMS)
"$here/manifests.sh" write "$outdir"
ls -l "$outdir" >&2
