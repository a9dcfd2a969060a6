#!/usr/bin/env bash
# Installs the Debian packages moonbridge's build and tests need, when they are missing.
# As root it runs apt-get; otherwise it prints the exact command and fails.
set -euo pipefail

# command:package pairs; a missing command means its package is installed.
needs=(cmake:cmake ninja:ninja-build gcc:gcc g++:g++ pkg-config:pkgconf openssl:openssl
  xz:xz-utils flock:util-linux git:git file:file jq:jq)
missing=()
for pair in "${needs[@]}"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
# AddressSanitizer's runtime for the shim's test.
ls /usr/lib/gcc/*/*/libasan.so >/dev/null 2>&1 || missing+=(libasan8)

if ! command -v go >/dev/null 2>&1; then
  echo "deps: Go 1.26 is not on PATH; install it (e.g. /usr/local/go/bin) and try again" >&2
  exit 1
fi
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "deps: missing ${missing[*]}; run as root: apt-get update && apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
