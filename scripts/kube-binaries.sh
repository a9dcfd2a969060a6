#!/usr/bin/env bash
# kube-binaries.sh: builds kube-apiserver (k8s.io/kubernetes) and etcd (go.etcd.io/etcd/server/v3)
# at the versions test/kubeapi/servers/go.mod pins, once, into a cache outside this repository,
# and prints the folder that holds both on stdout. Everything else it says goes to stderr. The
# tests in test/kubeapi (make test-kube) start them.
#
# The folder is $MOONBRIDGE_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/moonbridge)/kube/, one
# sub-folder per (Kubernetes version, etcd version, Go version, hash of the module's go.mod and
# go.sum and of the recipe number below): a change of any of them builds anew, the same ones
# reuse the finished build. A finished build is moved into place whole, so a folder that exists
# is complete; two runs at once build once (flock on the cache).
#
# Cold (empty Go build and module caches) it takes many minutes: docs/development.md has the
# measured time. Run it under `nice -n 19` on a shared machine.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
module=$root/test/kubeapi/servers
cache=${MOONBRIDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/moonbridge}/kube
packages=(k8s.io/kubernetes/cmd/kube-apiserver go.etcd.io/etcd/server/v3)
# recipe goes into the cache key: raise it when the build below changes (its flags, its stamps).
recipe=1

say() { echo "kube-binaries: $*" >&2; }

version_of() { go -C "$module" list -m -f '{{.Version}}' "$1"; }
kube_version=$(version_of k8s.io/kubernetes)
etcd_version=$(version_of go.etcd.io/etcd/server/v3)
sum=$( { cat "$module/go.mod" "$module/go.sum"; echo "recipe $recipe"; } | sha256sum | cut -c1-12)
dir=$cache/kubernetes-$kube_version-etcd-$etcd_version-$(go env GOVERSION)-$sum

complete() { [ -x "$dir/kube-apiserver" ] && [ -x "$dir/etcd" ]; }

mkdir -p "$cache"
exec 9>"$cache/.lock"
if ! complete && ! flock -n 9; then
  say "another build holds $cache/.lock; waiting"
  flock 9
fi
if complete; then
  say "cached: kube-apiserver $kube_version and etcd $etcd_version in $dir"
  echo "$dir"
  exit 0
fi

work=$(mktemp -d "$cache/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
say "building kube-apiserver $kube_version and etcd $etcd_version with $(go env GOVERSION) into $dir"
say "(from an empty Go cache: about 8 CPU-minutes, 15 to 18 minutes on a busy 2-core machine; GOCACHE=$(go env GOCACHE))"
started=$(date +%s)
# One go build for both, so that its parallel compile covers the two; -o into a folder names
# each binary after its package's last element before a major version (etcd's is "server").
# The version stamps are kube-apiserver's /version and --version (a build from the module
# proxy has no git tree for Kubernetes' own scripts to read them from).
minor=${kube_version#v1.}
minor=${minor%%.*}
stamp=k8s.io/component-base/version
CGO_ENABLED=0 go -C "$module" build -trimpath \
  -ldflags="-s -w -X $stamp.gitVersion=$kube_version -X $stamp.gitMajor=1 -X $stamp.gitMinor=$minor -X $stamp.gitTreeState=clean" \
  -o "$work/" "${packages[@]}"
mv "$work/server" "$work/etcd"
etcd_says=$("$work/etcd" --version)
say "built: $("$work/kube-apiserver" --version), ${etcd_says%%$'\n'*}"
rm -rf "$dir"
mv "$work" "$dir"
trap - EXIT
say "built in $(($(date +%s) - started))s: $dir"
echo "$dir"
