#!/usr/bin/env bash
# Obtains BoringSSL's source and builds its `crypto` and `ssl` static libraries into a cache
# outside this repository, then prints the install prefix on stdout. Everything else it says goes
# to stderr, including the one line that names the source and revision it used.
#
# Source, first that works (docs/design.md, "How BoringSSL is obtained and built"):
#   1. BORINGSSL_SRC            a BoringSSL checkout someone points to
#   2. a cached build           under $MOONBRIDGE_CACHE/boringssl/<revision>/<target>/install
#                               (BORINGSSL_REVISION picks one; otherwise the last one built)
#   3. chromium                 Debian's source package; only third_party/boringssl is extracted
#   4. android                  Debian's android-platform-external-boringssl (2022, slower AES-GCM)
#   5. git                      upstream at BORINGSSL_GIT_REVISION, where the machine has internet
# BORINGSSL_SOURCES (default "chromium,android,git") restricts and orders steps 3-5.
#
# It is idempotent (a finished build is marked .complete and reused) and safe when two builds run
# at once (flock on the cache). Nothing is written inside the repository.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${MOONBRIDGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/moonbridge}/boringssl
target=${BORINGSSL_TARGET:-$(uname -s | tr 'A-Z' 'a-z')-$(uname -m)}
sources=${BORINGSSL_SOURCES:-chromium,android,git}
# The revision Debian's chromium 150 carries; the upstream fallback pins the same one.
git_revision=${BORINGSSL_GIT_REVISION:-3a9254f16eda7a4c5d2260039ff23456a0a34de4}
git_url=${BORINGSSL_GIT_URL:-https://boringssl.googlesource.com/boringssl}

say() { echo "boringssl: $*" >&2; }
die() { say "error: $*"; exit 1; }

mkdir -p "$cache"
exec 9>"$cache/.lock"
if ! flock -n 9; then
  say "another build holds $cache/.lock; waiting"
  flock 9
fi

# prefix_of REVISION -> the install prefix for this target
prefix_of() { echo "$cache/$1/$target/install"; }

# report_and_print PREFIX HOW: the one status line, then the prefix for the caller.
report_and_print() {
  local prefix=$1 how=$2 revision source
  revision=$(sed -n 's/^REVISION=//p' "$prefix/boringssl.env")
  source=$(sed -n 's/^SOURCE=//p' "$prefix/boringssl.env")
  say "source=${source} revision=${revision} target=${target} (${how}) prefix=${prefix}"
  echo "$prefix"
}

# build SRC REVISION SOURCE [CFLAGS]: CMake + Ninja into the cache, marked complete at the end.
build() {
  local src=$1 revision=$2 source=$3 extra_cflags=${4:-} dir prefix started
  dir="$cache/$revision/$target"
  prefix="$dir/install"
  if [ -f "$prefix/.complete" ]; then
    report_and_print "$prefix" cached
    return
  fi
  started=$(date +%s)
  rm -rf "$dir/build" "$prefix"
  say "building crypto and ssl from $src (Release, PIC, tests off)"
  local toolchain=()
  [ -n "${CMAKE_TOOLCHAIN_FILE:-}" ] && toolchain=(-DCMAKE_TOOLCHAIN_FILE="$CMAKE_TOOLCHAIN_FILE")
  cmake -S "$here" -B "$dir/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DBORINGSSL_SOURCE_DIR="$src" -DCMAKE_INSTALL_PREFIX="$prefix" "${toolchain[@]}" \
    ${extra_cflags:+"-DCMAKE_C_FLAGS=$extra_cflags" "-DCMAKE_CXX_FLAGS=$extra_cflags"} >"$dir.cmake.log" 2>&1 ||
    { tail -n 30 "$dir.cmake.log" >&2; die "cmake configure failed (log: $dir.cmake.log)"; }
  cmake --build "$dir/build" --target crypto ssl >>"$dir.cmake.log" 2>&1 ||
    { tail -n 30 "$dir.cmake.log" >&2; die "build failed (log: $dir.cmake.log)"; }
  cmake --install "$dir/build" >>"$dir.cmake.log" 2>&1 || die "install failed (log: $dir.cmake.log)"
  printf 'REVISION=%s\nSOURCE=%s\nTARGET=%s\n' "$revision" "$source" "$target" >"$prefix/boringssl.env"
  rm -rf "$dir/build" # the archives and headers are installed; the objects are not needed again
  touch "$prefix/.complete"
  echo "$revision" >"$cache/current-$target"
  report_and_print "$prefix" "built in $(($(date +%s) - started))s"
}

# revision_of_checkout DIR: a git hash, the revision a README.chromium names, or a content hash.
revision_of_checkout() {
  local dir=$1 rev
  if rev=$(git -C "$dir" rev-parse HEAD 2>/dev/null); then echo "$rev"; return; fi
  for readme in "$dir/README.chromium" "$dir/../README.chromium"; do
    rev=$(sed -n 's/^Revision: *//p' "$readme" 2>/dev/null | head -n 1)
    [ -n "$rev" ] && { echo "$rev"; return; }
  done
  echo "local-$(cat "$dir/CMakeLists.txt" "$dir/include/openssl/base.h" | sha256sum | cut -c1-12)"
}

from_env_checkout() {
  [ -f "$BORINGSSL_SRC/CMakeLists.txt" ] || die "BORINGSSL_SRC=$BORINGSSL_SRC has no CMakeLists.txt"
  local src
  src=$(cd "$BORINGSSL_SRC" && pwd)
  build "$src" "$(revision_of_checkout "$src")" "BORINGSSL_SRC:$src"
}

from_cache() {
  local revision=${BORINGSSL_REVISION:-}
  [ -n "$revision" ] || revision=$(cat "$cache/current-$target" 2>/dev/null) || return 1
  [ -f "$(prefix_of "$revision")/.complete" ] || return 1
  report_and_print "$(prefix_of "$revision")" cached
}

# ensure_deb_src: apt-get source needs deb-src entries; scripts/bootstrap.sh base adds them.
ensure_deb_src() {
  if grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    return
  fi
  die "no deb-src entry in apt sources; as root run: scripts/bootstrap.sh base (make deps)"
}

# fetch_debian_source PACKAGE DIR: download the newest version whose files the mirror serves
# (a security suite may list a version before its files are there).
fetch_debian_source() {
  local package=$1 dir=$2 version
  command -v apt-get >/dev/null || return 1
  ensure_deb_src
  if [ -z "$(apt-cache showsrc "$package" 2>/dev/null)" ] && [ "$(id -u)" = 0 ]; then
    apt-get update -qq >&2
  fi
  for version in $(apt-cache showsrc "$package" 2>/dev/null | sed -n 's/^Version: //p' | sort -rVu); do
    rm -rf "$dir" && mkdir -p "$dir"
    if (cd "$dir" && apt-get source --download-only -qq "$package=$version" >"$dir.log" 2>&1); then
      say "downloaded $package $version"
      echo "$version"
      return
    fi
    say "$package $version is not downloadable ($(grep -m1 -o '[0-9]\{3\} .*' "$dir.log" || echo failed)); trying an older one"
  done
  return 1
}

from_chromium() {
  local dl="$cache/download/chromium" version work readme revision
  version=$(fetch_debian_source chromium "$dl") || return 1
  work="$cache/download/chromium-extract"
  rm -rf "$work" && mkdir -p "$work"
  say "extracting third_party/boringssl from chromium $version (about a minute)"
  tar -xJf "$dl"/chromium_*.orig.tar.xz -C "$work" --wildcards '*/third_party/boringssl/*'
  readme=$(echo "$work"/*/third_party/boringssl/README.chromium)
  revision=$(sed -n 's/^Revision: *//p' "$readme" | head -n 1)
  [ -n "$revision" ] || die "no Revision in $readme"
  rm -rf "$cache/$revision/src"
  mkdir -p "$cache/$revision"
  mv "$(dirname "$readme")/src" "$cache/$revision/src"
  rm -rf "$work" "$dl"
  build "$cache/$revision/src" "$revision" "debian-chromium-$version"
}

from_android() {
  local dl="$cache/download/android" version work revision src
  version=$(fetch_debian_source android-platform-external-boringssl "$dl") || return 1
  work="$cache/download/android-extract"
  rm -rf "$work" && mkdir -p "$work"
  tar -xf "$dl"/*.orig.tar.* -C "$work" --strip-components=1
  rm -rf "$dl"
  revision=$(cat "$work/BORINGSSL_REVISION" 2>/dev/null) || revision="android-$version"
  rm -rf "$cache/$revision/src-pkg" && mkdir -p "$cache/$revision"
  mv "$work" "$cache/$revision/src-pkg"
  src="$cache/$revision/src-pkg/src"
  [ -f "$src/CMakeLists.txt" ] || die "no BoringSSL CMakeLists.txt in the android package"
  # This 2022 CMakeLists.txt declares a googletest target unconditionally, and Debian's tarball
  # leaves googletest out; an empty source lets CMake configure (only crypto and ssl are built).
  mkdir -p "$src/third_party/googletest/src"
  : >>"$src/third_party/googletest/src/gtest-all.cc"
  # GCC 12 finds false positives in this older code that its -Werror turns into errors.
  build "$src" "$revision" "debian-android-$version" "-Wno-stringop-overflow -Wno-array-bounds -Wno-stringop-overread"
}

from_git() {
  command -v git >/dev/null || return 1
  timeout 20 git ls-remote "$git_url" HEAD >/dev/null 2>&1 || { say "upstream git is not reachable"; return 1; }
  local src="$cache/$git_revision/src"
  if [ ! -f "$src/CMakeLists.txt" ]; then
    rm -rf "$src" && mkdir -p "$src"
    git -C "$src" init -q && git -C "$src" fetch -q --depth 1 "$git_url" "$git_revision" &&
      git -C "$src" checkout -q FETCH_HEAD || return 1
  fi
  build "$src" "$git_revision" "git-$git_revision"
}

if [ -n "${BORINGSSL_SRC:-}" ]; then
  from_env_checkout
  exit 0
fi
from_cache && exit 0
IFS=, read -ra order <<<"$sources"
for step in "${order[@]}"; do
  case "$step" in
    chromium) from_chromium && exit 0 ;;
    android) from_android && exit 0 ;;
    git) from_git && exit 0 ;;
    *) die "unknown source '$step' in BORINGSSL_SOURCES" ;;
  esac
  say "source '$step' did not work; trying the next"
done
die "no BoringSSL source worked (tried: $sources). Set BORINGSSL_SRC to a checkout, or install the pure-Go build: make purego"
