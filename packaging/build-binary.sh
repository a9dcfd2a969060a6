#!/usr/bin/env bash
# Builds one release binary of moonbridge.
#
#   packaging/build-binary.sh OS ARCH FLAVOUR OUT
#
# FLAVOUR is purego (CGO_ENABLED=0, any OS) or boringssl (cgo with BoringSSL, linux/amd64 and
# linux/arm64 only). DIST_LDFLAGS (from dist.mk) carries the version stamp.
#
# Reproducible where Go allows it: -trimpath, an empty build id and no timestamps, so two pure-Go
# builds of one commit are byte-identical (make dist-check verifies that). The boringssl flavour
# is linked fully static (netgo and osusergo keep glibc's NSS, which cannot be linked statically,
# out of it), so one binary runs on any Linux of its architecture, whatever its glibc. The linker
# still warns that BoringSSL's socket BIO uses getaddrinfo: expected, as the shim never creates a
# socket BIO (BoringSSL only sees memory buffers) and Go resolves names itself.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 4 ] || { echo "build-binary.sh: usage: build-binary.sh OS ARCH purego|boringssl OUT" >&2; exit 2; }
os=$1 arch=$2 flavour=$3 out=$4
go=${GO:-go}
ldflags="-s -w -buildid= ${DIST_LDFLAGS:-}"

cd "$root"
case "$flavour" in
  purego)
    CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$go" build -trimpath -ldflags "$ldflags" -o "$out" ./cmd/moonbridge
    ;;
  boringssl)
    [ "$os" = linux ] || { echo "build-binary.sh: the boringssl flavour is built for linux only" >&2; exit 2; }
    cc=gcc cxx=g++
    if [ "$arch" = arm64 ]; then cc=aarch64-linux-gnu-gcc cxx=aarch64-linux-gnu-g++; fi
    pc=$(packaging/native.sh "$arch")
    # the archives' hash keys Go's cache (see scripts/native-id.sh)
    id=$(PKG_CONFIG_PATH=$pc scripts/native-id.sh)
    PKG_CONFIG_PATH=$pc CC=$cc CXX=$cxx CGO_ENABLED=1 CGO_CFLAGS="-O2 -g -DMB_NATIVE_ID=$id" GOOS=linux GOARCH=$arch \
      "$go" build -trimpath -tags boringssl,netgo,osusergo \
      -ldflags "$ldflags -linkmode=external -extldflags=-static" -o "$out" ./cmd/moonbridge
    ;;
  *) echo "build-binary.sh: unknown flavour $flavour" >&2; exit 2 ;;
esac
echo "built $os/$arch $flavour: $out" >&2
