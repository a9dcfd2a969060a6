#!/usr/bin/env bash
# Checks every archive in DIST: its files are there (the binary, every document
# packaging/archive-files.txt lists with the repository's content, and in a Linux archive the
# systemd unit), and its binary is the right one. A binary this
# machine can run (linux/amd64 natively, linux/arm64 under qemu-user) must print `version` with
# the flavour and platform its name says and pass `--check-tls` (BoringSSL's loopback self-test in
# a boringssl build); any other binary is checked with `file` for format and architecture.
# SHA256SUMS must match. Prints one line per archive and fails on the first wrong one.
#
#   packaging/check-archives.sh DIST
set -euo pipefail

dist=$(cd "${1:?usage: check-archives.sh DIST}" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mapfile -t docs < <(grep -v -e '^#' -e '^$' "$root/packaging/archive-files.txt")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "dist-check: FAIL $*" >&2; exit 1; }

(cd "$dist" && sha256sum --quiet -c SHA256SUMS) || fail "SHA256SUMS does not match dist/"
echo "dist-check: SHA256SUMS matches $(grep -c . "$dist/SHA256SUMS") files"

# runner OS ARCH: how to run such a binary here, or nothing when it cannot run.
runner() {
  case "$(uname -m)/$1/$2" in
    x86_64/linux/amd64) echo native ;;
    x86_64/linux/arm64) command -v qemu-aarch64 >/dev/null && echo "qemu-aarch64 -L /usr/aarch64-linux-gnu" ;;
  esac
}

# file_pattern OS ARCH: what `file` must say about the binary.
file_pattern() {
  case "$1/$2" in
    linux/amd64) echo 'ELF 64-bit LSB.*x86-64' ;;
    linux/arm64) echo 'ELF 64-bit LSB.*ARM aarch64' ;;
    darwin/amd64) echo 'Mach-O 64-bit x86_64 executable' ;;
    darwin/arm64) echo 'Mach-O 64-bit arm64 executable' ;;
    windows/amd64) echo 'PE32\+ executable.*x86-64' ;;
    windows/arm64) echo 'PE32\+ executable.*Aarch64' ;;
    *) return 1 ;;
  esac
}

count=0
for archive in "$dist"/*.tar.gz "$dist"/*.zip; do
  name=$(basename "$archive")
  name=${name%.tar.gz}
  name=${name%.zip}
  IFS=_ read -r _ _ os arch flavour <<<"$name"
  dir="$work/$name"
  case "$archive" in
    *.zip) unzip -q "$archive" -d "$work" ;;
    *) tar -xzf "$archive" -C "$work" ;;
  esac
  exe="$dir/moonbridge"
  [ "$os" = windows ] && exe="$dir/moonbridge.exe"
  [ -f "$exe" ] || fail "$name: ${exe#"$dir/"} is missing"
  for doc in "${docs[@]}"; do
    cmp -s "$root/$doc" "$dir/$doc" || fail "$name: $doc is missing or differs from the source"
  done
  if [ "$os" = linux ]; then
    cmp -s "$root/packaging/linux/moonbridge.service" "$dir/moonbridge.service" ||
      fail "$name: moonbridge.service is missing or differs from packaging/linux/"
  fi
  described=$(file -b "$exe")
  echo "$described" | grep -Eq "$(file_pattern "$os" "$arch")" || fail "$name: file says: $described"
  # The boringssl flavour is linked statically, so it needs nothing from the machine it runs on.
  if [ "$flavour" = boringssl ] && ! echo "$described" | grep -q 'statically linked'; then
    fail "$name: not statically linked: $described"
  fi
  how=$(runner "$os" "$arch")
  if [ -n "$how" ]; then
    cmd=("$exe")
    [ "$how" != native ] && read -ra cmd <<<"$how $exe"
    out=$("${cmd[@]}" version --check-tls 2>&1) || fail "$name: version --check-tls failed: $out"
    grep -q "^flavour: *$flavour$" <<<"$out" || fail "$name: wrong flavour: $out"
    grep -q "^go: .* $os/$arch$" <<<"$out" || fail "$name: wrong platform: $out"
    grep -q "^tls self-test: .* ok" <<<"$out" || fail "$name: no self-test line: $out"
    echo "dist-check: ok  $name: ran ($how): $(grep '^tls self-test' <<<"$out")"
  else
    echo "dist-check: ok  $name: cannot run here; file: ${described%%,*}, $(cut -d, -f2 <<<"$described" | sed 's/^ //')"
  fi
  count=$((count + 1))
done
[ "$count" -gt 0 ] || fail "no archives in $dist"
echo "dist-check: $count archives ok"
