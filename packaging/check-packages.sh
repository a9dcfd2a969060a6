#!/usr/bin/env bash
# Checks the .deb and .rpm in DIST. The .rpm's file list and scripts are read with rpm (when it is
# installed). The .deb for this machine's architecture is installed with dpkg: its binary must run
# from /usr/bin, its config is a noreplace conffile (a reinstall keeps a local edit), systemd-analyze
# (when there is one) must accept its unit, and `dpkg -r` then `dpkg -P` must leave none of its
# files behind. Installing needs root and a machine without another moonbridge package; without
# either the install check is skipped with the reason, the rest still runs.
#
#   packaging/check-packages.sh DIST
set -euo pipefail

dist=$(cd "${1:?usage: check-packages.sh DIST}" && pwd)
fail() { echo "dist-check: FAIL $*" >&2; exit 1; }
skip() { echo "dist-check: SKIP $*"; }
ok() { echo "dist-check: ok  $*"; }

# The files every package must install; the unit's path is the same on Debian and RPM systems.
# The documents are the archives' (packaging/archive-files.txt), under /usr/share/doc/moonbridge/.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
expected=(/usr/bin/moonbridge /etc/moonbridge/moonbridge.yml /usr/lib/systemd/system/moonbridge.service
  /usr/lib/sysusers.d/moonbridge.conf)
while read -r doc; do
  expected+=("/usr/share/doc/moonbridge/$doc")
done < <(grep -v -e '^#' -e '^$' "$root/packaging/archive-files.txt")

check_rpm() {
  local rpm=$1 files
  if ! command -v rpm >/dev/null; then
    skip "$(basename "$rpm"): rpm is not installed (scripts/bootstrap.sh dist installs it)"
    return
  fi
  files=$(rpm -qpl "$rpm" 2>/dev/null)
  for f in "${expected[@]}"; do grep -qx "$f" <<<"$files" || fail "$(basename "$rpm") lacks $f"; done
  # "cn": %config(noreplace), so an upgrade keeps the operator's file.
  rpm -qp --qf '[%{FILEFLAGS:fflags} %{FILENAMES}\n]' "$rpm" 2>/dev/null | grep -qx 'cn /etc/moonbridge/moonbridge.yml' ||
    fail "$(basename "$rpm"): the config is not %config(noreplace)"
  rpm -qp --scripts "$rpm" 2>/dev/null | grep -q systemd-sysusers || fail "$(basename "$rpm") has no install script"
  ok "$(basename "$rpm"): $(wc -l <<<"$files") files, config(noreplace), scripts"
}

check_deb_contents() {
  local deb=$1 files
  files=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\.||')
  for f in "${expected[@]}"; do grep -qx "$f" <<<"$files" || fail "$(basename "$deb") lacks $f"; done
  dpkg-deb -I "$deb" conffiles | grep -qx /etc/moonbridge/moonbridge.yml || fail "$(basename "$deb"): config is not a conffile"
  ok "$(basename "$deb"): contents and conffiles"
}

verify_unit() {
  local unit=/usr/lib/systemd/system/moonbridge.service out
  if ! command -v systemd-analyze >/dev/null; then
    skip "systemd-analyze verify: systemd is not installed here (not installed by dist-deps: heavy in a container)"
    return
  fi
  # verify checks the unit's syntax and that ExecStart exists; it needs no running systemd.
  out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify "$unit" 2>&1) || fail "systemd-analyze verify: $out"
  [ -z "$out" ] || fail "systemd-analyze verify warns: $out"
  ok "systemd-analyze verify accepts $unit"
}

install_deb() {
  local deb=$1 out leftovers
  if [ "$(id -u)" != 0 ]; then skip "dpkg -i $(basename "$deb"): needs root"; return; fi
  if dpkg-query -W -f '${Status}' moonbridge 2>/dev/null | grep -q installed; then
    skip "dpkg -i $(basename "$deb"): a moonbridge package is already installed here; not touching it"
    return
  fi
  dpkg -i "$deb" >/dev/null || fail "dpkg -i $(basename "$deb")"
  out=$(/usr/bin/moonbridge version --check-tls 2>&1) || fail "/usr/bin/moonbridge version: $out"
  grep -q '^flavour: *boringssl$' <<<"$out" || fail "installed binary is not the boringssl flavour: $out"
  /usr/bin/moonbridge check-config /etc/moonbridge/moonbridge.yml >/dev/null || fail "installed config does not load"
  getent passwd moonbridge >/dev/null || fail "postinst did not create the moonbridge user"
  ok "dpkg -i: /usr/bin/moonbridge runs ($(grep '^tls self-test' <<<"$out")), config loads, user moonbridge exists"

  echo "# edited by dist-check" >>/etc/moonbridge/moonbridge.yml
  dpkg -i "$deb" >/dev/null || fail "reinstalling $(basename "$deb")"
  grep -q '^# edited by dist-check$' /etc/moonbridge/moonbridge.yml || fail "reinstall replaced the edited config"
  ok "reinstall keeps the edited /etc/moonbridge/moonbridge.yml (noreplace)"

  verify_unit

  dpkg -r moonbridge >/dev/null || fail "dpkg -r moonbridge"
  for f in "${expected[@]}"; do
    [ "$f" = /etc/moonbridge/moonbridge.yml ] && continue # a conffile stays until purge
    [ ! -e "$f" ] || fail "dpkg -r left $f"
  done
  dpkg -P moonbridge >/dev/null || fail "dpkg -P moonbridge"
  leftovers=$(ls -d /etc/moonbridge /usr/share/doc/moonbridge "${expected[@]}" 2>/dev/null || true)
  [ -z "$leftovers" ] || fail "dpkg -P left: $leftovers"
  ok "dpkg -r and -P removed every file (the moonbridge system user stays, as Debian policy asks)"
}

debs=("$dist"/*.deb)
rpms=("$dist"/*.rpm)
if [ ! -e "${debs[0]}" ] || [ ! -e "${rpms[0]}" ]; then fail "no .deb or .rpm in $dist"; fi
for deb in "${debs[@]}"; do check_deb_contents "$deb"; done
for rpm in "${rpms[@]}"; do check_rpm "$rpm"; done
native=$(dpkg --print-architecture)
mine=("$dist"/*_linux_"${native}"_boringssl.deb)
[ -e "${mine[0]}" ] || fail "no .deb for this machine's architecture ($native)"
install_deb "${mine[0]}"
