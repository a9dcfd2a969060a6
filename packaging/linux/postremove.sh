#!/bin/sh
# After removal (.deb postrm, .rpm %postun): forget the unit. The moonbridge user stays, as Debian
# policy asks, so files it owns elsewhere keep a named owner.
set -e
if [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
fi
