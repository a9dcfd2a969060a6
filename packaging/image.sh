#!/usr/bin/env bash
# Builds or checks moonbridge's container image (deploy/cmd/mkimage, a Go module of its own):
# one OCI image index with the static boringssl binary for linux/amd64 and linux/arm64, Debian's
# CA bundle and a non-root user, as an OCI layout in one tar file that `docker load` (25 and
# later), `podman load` and `skopeo copy oci-archive:FILE ...` read. check reads IMAGE back and
# compares it with what build would write from the same binaries.
#
#   packaging/image.sh build|check IMAGE AMD64_BINARY ARM64_BINARY
#
# Reproducible: every timestamp is SOURCE_DATE_EPOCH (the commit's time, from dist.mk). The CA
# bundle is this machine's /etc/ssl/certs/ca-certificates.crt from Debian's ca-certificates
# (scripts/bootstrap.sh dist installs it); its package version is a label of the image.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 4 ] || { echo "image.sh: usage: image.sh build|check IMAGE AMD64_BINARY ARM64_BINARY" >&2; exit 2; }
mode=$1 image=$(realpath -m "$2") amd64=$(realpath "$3") arm64=$(realpath "$4")
: "${DIST_VERSION:?set by dist.mk}" "${SOURCE_DATE_EPOCH:?set by dist.mk}"
ca=/etc/ssl/certs/ca-certificates.crt
ca_version=$(dpkg-query -W -f '${Version}' ca-certificates 2>/dev/null) ||
  { echo "image.sh: Debian's ca-certificates is not installed (scripts/bootstrap.sh dist)" >&2; exit 1; }

"${GO:-go}" -C "$root/deploy" run ./cmd/mkimage "$mode" --image "$image" \
  --version "$DIST_VERSION" --created "$SOURCE_DATE_EPOCH" --ca-bundle "$ca" \
  --label org.opencontainers.image.title=moonbridge \
  --label org.opencontainers.image.version="$DIST_VERSION" \
  --label org.opencontainers.image.revision="$(git -C "$root" rev-parse HEAD)" \
  --label org.opencontainers.image.licenses=Apache-2.0 \
  --label io.moonbridge.ca-certificates="debian ca-certificates $ca_version" \
  linux/amd64="$amd64" linux/arm64="$arm64"
