#!/usr/bin/env bash
# Builds moonbridge's .deb and .rpm for one architecture with nfpm (packaging/nfpm.yaml).
#
#   packaging/packages.sh NFPM ARCH BINARY OUTDIR BASENAME
#
# writes OUTDIR/BASENAME.deb and OUTDIR/BASENAME.rpm. Package managers want a version that starts
# with a digit, so DIST_VERSION (git describe) is mapped: v1.2.3 -> 1.2.3, v1.2.3-4-gabc ->
# 1.2.3+git4.gabc, and an untagged abc1234[-dirty] -> 0.0.0~git.abc1234[.dirty], which sorts below
# any release. nfpm reads SOURCE_DATE_EPOCH for the files' times.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 5 ] || { echo "packages.sh: usage: packages.sh NFPM ARCH BINARY OUTDIR BASENAME" >&2; exit 2; }
nfpm=$1 arch=$2 binary=$(realpath "$3") outdir=$(realpath "$4") base=$5

package_version() {
  local v=${1#v}
  if [[ $v =~ ^[0-9]+(\.[0-9]+)*$ ]]; then
    echo "$v"
  elif [[ $v =~ ^([0-9]+(\.[0-9]+)*)-(.*)$ ]]; then
    echo "${BASH_REMATCH[1]}+git${BASH_REMATCH[3]//-/.}"
  else
    echo "0.0.0~git.${v//-/.}"
  fi
}

export PKG_ARCH=$arch PKG_BINARY=$binary PKG_VERSION
PKG_VERSION=$(package_version "${DIST_VERSION:?DIST_VERSION is set by dist.mk}")
cd "$root" # nfpm.yaml names its sources relative to the repository
for format in deb rpm; do
  "$nfpm" package --config packaging/nfpm.yaml --packager "$format" --target "$outdir/$base.$format" >&2
  echo "$outdir/$base.$format"
done
