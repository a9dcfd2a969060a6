#!/usr/bin/env bash
# Builds BoringSSL and the C shim for one Linux architecture and prints the directory that holds
# its moonbridge-native.pc, for PKG_CONFIG_PATH. Each architecture gets its own CMake build dir,
# build/cross-<target>, so dist never touches build/ itself, which `make build` and the other
# engineers' builds use. BoringSSL comes from third_party/boringssl/obtain.sh and its cache, keyed
# by target (linux-x86_64, linux-aarch64).
#
#   packaging/native.sh amd64|arm64
#
# The build machine is linux/amd64; arm64 is cross-compiled with Debian's aarch64 toolchain
# through packaging/cmake/aarch64-linux-gnu.cmake (scripts/bootstrap.sh dist installs it).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
toolchain=()
case "${1:-}" in
  amd64) target=linux-x86_64 ;;
  arm64)
    target=linux-aarch64
    toolchain=(-DCMAKE_TOOLCHAIN_FILE="$root/packaging/cmake/aarch64-linux-gnu.cmake")
    export CMAKE_TOOLCHAIN_FILE="$root/packaging/cmake/aarch64-linux-gnu.cmake" # read by obtain.sh
    ;;
  *) echo "native.sh: usage: native.sh amd64|arm64" >&2; exit 2 ;;
esac

prefix=$(BORINGSSL_TARGET=$target "$root/third_party/boringssl/obtain.sh")
dir="$root/build/cross-$target"
cmake -S "$root" -B "$dir" -G Ninja -DBORINGSSL_ROOT="$prefix" "${toolchain[@]}" >"$dir.cmake.log" 2>&1 ||
  { tail -n 20 "$dir.cmake.log" >&2; echo "native.sh: cmake configure failed (log: $dir.cmake.log)" >&2; exit 1; }
# Only the static shim: its C test is run by `make test` on the host, not cross-built here.
cmake --build "$dir" --target moonbridge_native >>"$dir.cmake.log" 2>&1 ||
  { tail -n 20 "$dir.cmake.log" >&2; echo "native.sh: shim build failed (log: $dir.cmake.log)" >&2; exit 1; }
echo "$dir/pkgconfig"
