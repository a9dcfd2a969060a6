#!/bin/sh
# Before removal (.deb prerm with "remove", .rpm %preun with 0 installs left): stop and disable the
# unit so no running proxy or dangling enablement link outlives the package. Upgrades are left
# alone; postinstall.sh upgrades the running proxy in place (or restarts an older one) after them.
set -e
case "$1" in
  remove | 0)
    if [ -d /run/systemd/system ]; then
      systemctl disable --now moonbridge.service >/dev/null 2>&1 || true
    fi
    ;;
esac
