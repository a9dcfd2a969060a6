#!/usr/bin/env bash
# bootstrap.sh SET...: installs what moonbridge's make targets need, when it is missing. The one
# place that installs toolchain; the sets:
#
#   base     build and test (make deps): cmake, ninja-build, gcc, g++, pkgconf, openssl,
#            xz-utils, util-linux (flock), git, file, jq, tmux (the console a test double-clicks
#            the client bridge in), libasan, and deb-src entries in apt's sources as root
#            (obtain.sh downloads BoringSSL's Debian source package when the cache has no
#            build). Go 1.26 must be on PATH already.
#   browser  make test: chromium (about 356 MB), in which the relay's landing page test and
#            the admin dashboard's tests load their pages headless; build and run do not need it.
#   dist     make dist and dist-check (make dist-deps): the aarch64 cross compilers, qemu-user,
#            zip, unzip, dpkg, rpm and ruby (rpm so dist-check can read the .rpm, ruby so it can
#            check the Homebrew formula; nfpm needs neither), ca-certificates (its bundle goes
#            into the container image), and nfpm from the Go module proxy into build/dist-tools.
#            systemd-analyze is not installed (systemd is heavy in a container); dist-check
#            skips that one check and says so.
#   interop  make interop: nodejs, npm and python3, and node-minecraft-protocol from npm into
#            the cache (about 500 MB with its data; NODE_PATH=$cache/interop/node_modules).
#   peers    make bench-peers: haproxy, websockify and v2ray.
#   docker   make interop-docker and make interop-image: podman and runc (crun, podman's first
#            choice, fails in some sandboxes; both runs ask for runc).
#
# Debian packages: as root, everything missing from every set named is installed with one
# apt-get update and one apt-get install; as another user the exact command is printed and the
# script fails. The Go and npm tools are installed as any user once the packages are there.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cache=${MOONBRIDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/moonbridge}
# Pinned tools: a version the Go module proxy serves and that builds with Go 1.26, and the npm
# release the interop run was written against.
nfpm_version=v2.45.2
minecraft_protocol_version=1.68.0

say() { echo "bootstrap: $*" >&2; }

# command:package pairs per set; a command on PATH means its package is installed.
needs_base=(cmake:cmake ninja:ninja-build gcc:gcc g++:g++ pkg-config:pkgconf openssl:openssl
  xz:xz-utils flock:util-linux git:git file:file jq:jq tmux:tmux)
needs_browser=(chromium:chromium)
needs_dist=(aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu aarch64-linux-gnu-g++:g++-aarch64-linux-gnu
  qemu-aarch64:qemu-user zip:zip unzip:unzip file:file dpkg-deb:dpkg rpm:rpm
  ruby:ruby)
needs_interop=(node:nodejs npm:npm python3:python3)
needs_peers=(haproxy:haproxy websockify:websockify v2ray:v2ray)
needs_docker=(podman:podman runc:runc)

sets=("$@")
[ ${#sets[@]} -gt 0 ] || { say "usage: bootstrap.sh base|browser|dist|interop|peers|docker..."; exit 2; }
missing=()
add_deb_src=false
for set in "${sets[@]}"; do
  case $set in base | browser | dist | interop | peers | docker) ;; *) say "unknown set $set (base, browser, dist, interop, peers, docker)"; exit 2 ;; esac
  declare -n needs="needs_$set"
  for pair in "${needs[@]}"; do
    command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
  done
  unset -n needs
done

# has_set NAME: whether the caller asked for that set.
has_set() { [[ " ${sets[*]} " == *" $1 "* ]]; }

if has_set base || has_set dist; then
  command -v go >/dev/null 2>&1 ||
    { say "Go 1.26 is not on PATH; install it (e.g. /usr/local/go/bin) and try again"; exit 1; }
fi
if has_set base; then
  # AddressSanitizer's runtime for the shim's test.
  ls /usr/lib/gcc/*/*/libasan.so >/dev/null 2>&1 || missing+=(libasan8)
  grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/ || add_deb_src=true
fi
if has_set dist; then
  # The container image ships Debian's CA bundle (packaging/image.sh).
  [ -f /etc/ssl/certs/ca-certificates.crt ] || missing+=(ca-certificates)
fi
# A package two sets name once.
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | awk 'NF && !seen[$0]++')

# write_deb_src: Debian's source entries for this machine's suite (apt-get source needs them).
write_deb_src() {
  local suite
  suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
  say "adding deb-src entries for $suite"
  cat >/etc/apt/sources.list.d/moonbridge-deb-src.sources <<EOF
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
}

if [ "$(id -u)" != 0 ]; then
  if [ ${#missing[@]} -gt 0 ]; then
    say "missing ${missing[*]}; run as root: apt-get update && apt-get install -y --no-install-recommends ${missing[*]}"
    exit 1
  fi
  # deb-src entries are only needed when BoringSSL is not cached: obtain.sh says so then.
elif [ ${#missing[@]} -gt 0 ] || $add_deb_src; then
  $add_deb_src && write_deb_src
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing ${missing[*]}"
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

# build/dist-tools/nfpm links to the pinned build, so dist.mk names no version.
if has_set dist; then
  tools=$root/build/dist-tools
  if [ ! -x "$tools/nfpm-$nfpm_version" ]; then
    say "installing nfpm $nfpm_version from the Go module proxy"
    mkdir -p "$tools"
    GOBIN=$tools go install "github.com/goreleaser/nfpm/v2/cmd/nfpm@$nfpm_version"
    mv "$tools/nfpm" "$tools/nfpm-$nfpm_version"
  fi
  ln -sfn "nfpm-$nfpm_version" "$tools/nfpm"
fi

# $cache/interop/node_modules links to the pinned release, so run.sh names no version.
if has_set interop; then
  prefix=$cache/interop/minecraft-protocol-$minecraft_protocol_version
  if [ ! -d "$prefix/node_modules/minecraft-protocol" ]; then
    say "installing minecraft-protocol@$minecraft_protocol_version into $prefix"
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --loglevel=error \
      "minecraft-protocol@$minecraft_protocol_version" >&2
  fi
  ln -sfn "minecraft-protocol-$minecraft_protocol_version/node_modules" "$cache/interop/node_modules"
fi
