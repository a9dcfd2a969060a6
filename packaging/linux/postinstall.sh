#!/bin/sh
# After install or upgrade (.deb postinst and .rpm %post): create the moonbridge user and tell
# systemd about the unit. The proxy is not started: its config needs the operator first.
set -e
if command -v systemd-sysusers >/dev/null 2>&1; then
  systemd-sysusers moonbridge.conf
elif ! getent passwd moonbridge >/dev/null 2>&1; then
  useradd --system --user-group --home-dir /nonexistent --no-create-home \
    --shell /usr/sbin/nologin moonbridge
fi
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
  # An upgrade restarts a running proxy so it runs the new binary.
  systemctl try-restart moonbridge.service || true
fi
