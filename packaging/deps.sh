#!/usr/bin/env bash
# Installs what `make dist` and `make dist-check` need beyond `make deps`, when it is missing:
# Debian's aarch64 cross compilers (BoringSSL and the shim for linux/arm64), qemu-user (to run
# the arm64 binary), zip, unzip and file, and rpm (only so dist-check can read the .rpm it built;
# nfpm itself needs neither rpm nor dpkg-dev). As root it runs apt-get; otherwise it prints the
# exact command and fails. nfpm is a Go program: dist.mk installs it from the Go module proxy.
# systemd-analyze is not installed here (systemd is heavy in a container); dist-check skips that
# one check and says so when it is missing.
set -euo pipefail

# command:package pairs; a command that is there means its package is installed.
needs=(aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu aarch64-linux-gnu-g++:g++-aarch64-linux-gnu
  qemu-aarch64:qemu-user zip:zip unzip:unzip file:file dpkg-deb:dpkg rpm:rpm)
missing=()
for pair in "${needs[@]}"; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ]; then
  echo "dist-deps: missing ${missing[*]}; run as root: apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
echo "dist-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
