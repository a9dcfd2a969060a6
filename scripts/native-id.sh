#!/usr/bin/env bash
# native-id.sh: a short hash of what pkg-config says about moonbridge-native (its flags, with the
# archives' paths) and of the C archives it links (the shim, libssl, libcrypto), found through
# PKG_CONFIG_PATH; "none" when there is no such .pc file (pure Go).
#
# Why: Go keys a cgo package's build cache entry on the CGO_* variables and the #cgo lines, not
# on what pkg-config prints nor on the bytes of the archives it names; yet the entry keeps the
# link flags pkg-config gave when it was compiled. Without this hash, after the shim or
# BoringSSL changes Go would reuse a package compiled against the old archives, and a checkout
# in another directory would link the archives of the checkout that filled the cache (a build
# failed so once that checkout was deleted: "cannot find .../libmoonbridge_native.a"). The Makefile and
# packaging/build-binary.sh put this hash into CGO_CFLAGS (part of every cgo package's cache key)
# and into the link flags (`moonbridge version --json` shows it as native_id).
set -euo pipefail

libs=$(pkg-config --libs moonbridge-native 2>/dev/null) || { echo none; exit 0; }
archives=()
for word in $libs; do
  case "$word" in *.a) archives+=("$word") ;; esac
done
[ ${#archives[@]} -gt 0 ] || { echo none; exit 0; }
{ pkg-config --cflags --libs moonbridge-native; cat "${archives[@]}"; } | sha256sum | cut -c1-16
