#!/usr/bin/env bash
# Rebuilds the pure-Go binary of OS/ARCH from scratch (an empty Go build cache, another output
# path) and checks it is byte-identical to the one shipped in DIST's archive: the build depends on
# the commit and the toolchain, not on the machine's cache or the time.
#
#   packaging/check-repro.sh DIST OS/ARCH
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
dist=$(cd "${1:?usage: check-repro.sh DIST OS/ARCH}" && pwd)
IFS=/ read -r os arch <<<"${2:?usage: check-repro.sh DIST OS/ARCH}"
[ "$os" != windows ] || { echo "check-repro.sh: pick a .tar.gz target" >&2; exit 2; }
name="moonbridge_${DIST_VERSION:?set by dist.mk}_${os}_${arch}_purego"
if [ ! -f "$dist/$name.tar.gz" ]; then
  # A rebuild can only match when the tree is the one dist/ was built from.
  echo "dist-check: FAIL no $name.tar.gz: dist/ holds $(cd "$dist" && ls -- *_"${os}_${arch}"_purego.tar.gz 2>/dev/null || echo nothing) but the tree is now $DIST_VERSION; run make dist again" >&2
  exit 1
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

tar -xzf "$dist/$name.tar.gz" -C "$work" "$name/moonbridge"
started=$SECONDS
GOCACHE="$work/gocache" "$here/build-binary.sh" "$os" "$arch" purego "$work/rebuilt" 2>/dev/null
shipped=$(sha256sum <"$work/$name/moonbridge")
rebuilt=$(sha256sum <"$work/rebuilt")
if [ "$shipped" != "$rebuilt" ]; then
  echo "dist-check: FAIL $os/$arch purego is not reproducible: shipped ${shipped%% *}, rebuilt ${rebuilt%% *}" >&2
  exit 1
fi
echo "dist-check: ok  $os/$arch purego rebuilt with an empty build cache in $((SECONDS - started))s: same sha256 ${shipped%% *}"
