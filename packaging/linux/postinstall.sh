#!/bin/sh
# After install or upgrade (.deb postinst and .rpm %post): create the moonbridge user and tell
# systemd about the unit. The proxy is not started: its config needs the operator first.
# MOONBRIDGE_SYSTEMD_DIR is for the test of this script only (cmd/moonbridge/unit_test.go).
set -e
if command -v systemd-sysusers >/dev/null 2>&1; then
  systemd-sysusers moonbridge.conf
elif ! getent passwd moonbridge >/dev/null 2>&1; then
  useradd --system --user-group --home-dir /nonexistent --no-create-home \
    --shell /usr/sbin/nologin moonbridge
fi
if [ -d "${MOONBRIDGE_SYSTEMD_DIR:-/run/systemd/system}" ]; then
  # A running proxy that says in its status that SIGUSR2 upgrades it (docs/upgrade.md) starts the
  # new binary itself and hands it the listeners: no connection is refused, and the sessions
  # open stay in the old process until they end or upgrade.stay passes. An older one (its
  # status has no such line) is restarted. The status is read before daemon-reload, from the
  # process that runs now.
  status=$(systemctl show --property=StatusText --value moonbridge.service 2>/dev/null || true)
  pid=$(systemctl show --property=MainPID --value moonbridge.service 2>/dev/null || echo 0)
  systemctl daemon-reload || true
  case "$status" in
    *SIGUSR2*)
      if [ "${pid:-0}" -gt 0 ] && kill -USR2 "$pid"; then
        echo "moonbridge: the running proxy (pid $pid) upgrades itself in place; journalctl -u moonbridge says how it went"
      else
        systemctl try-restart moonbridge.service || true
      fi
      ;;
    *) systemctl try-restart moonbridge.service || true ;;
  esac
fi
