#!/usr/bin/env bash
# native-id.sh: a short hash of the C archives that moonbridge-native.pc links (the shim, libssl,
# libcrypto), found through PKG_CONFIG_PATH; "none" when there is no such .pc file (pure Go).
#
# Why: Go keys its build cache on PKG_CONFIG_PATH and on the paths it links, not on the bytes
# of those archives or on what pkg-config prints, so after the shim or BoringSSL changes it would
# reuse a cgo package compiled, link flags and all, against the old ones. The Makefile and
# packaging/build-binary.sh put this hash into CGO_CFLAGS (part of every cgo package's cache key)
# and into the link flags (`moonbridge version --json` shows it as native_id).
set -euo pipefail

libs=$(pkg-config --libs moonbridge-native 2>/dev/null) || { echo none; exit 0; }
archives=()
for word in $libs; do
  case "$word" in *.a) archives+=("$word") ;; esac
done
[ ${#archives[@]} -gt 0 ] || { echo none; exit 0; }
cat "${archives[@]}" | sha256sum | cut -c1-16
