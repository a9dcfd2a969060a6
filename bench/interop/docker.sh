#!/usr/bin/env bash
# docker.sh: discover/docker against a real podman (discover/docker/podman_interop_test.go,
# built with the interop tag). The test runs its own `podman system service` on a socket in a
# temporary directory, with podman's storage, state and networks there too, and checks that:
#
#   - containers run, stopped, recreated with another moonbridge.host, and created with
#     moonbridge.wake on a user-defined network appear and disappear as routes;
#   - a restart of the service (the events stream drops) is caught up with by a new listing;
#   - a login through the relay to a route whose wake is a created container starts it through
#     the API, is relayed to its server once it answers, and the idle stop stops it.
#
# The containers' program is the test binary (CGO_ENABLED=0: an image of that one file) on the
# host network, serving on loopback ports. podman runs them with runc, and as root. Not part
# of `make test`.
#
# Usage: bench/interop/docker.sh   (`make interop-docker` runs the bootstrap first)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
for tool in podman runc go; do
  command -v "$tool" >/dev/null ||
    { echo "interop-docker: needs $tool; run scripts/bootstrap.sh docker" >&2; exit 2; }
done
[ "$(id -u)" = 0 ] || { echo "interop-docker: run as root (the test's podman uses the host network and runc as root)" >&2; exit 2; }
cd "$root"
CGO_ENABLED=0 go test -tags interop -count=1 -timeout 5m -run '^TestPodman' -v ./discover/docker/
