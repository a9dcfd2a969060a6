#!/usr/bin/env bash
# Packs one binary with the documents packaging/archive-files.txt lists (README.md, LICENSE,
# moonbridge.example.yml, the owner's pages under docs/) into OUTDIR/NAME.tar.gz (Linux, macOS)
# or OUTDIR/NAME.zip (Windows), all under one top-level folder NAME/. A Linux archive also holds
# the systemd unit the packages install, as NAME/moonbridge.service.
#
#   packaging/archive.sh OS BINARY NAME OUTDIR
#
# Reproducible: entries sorted, owner root, every mtime SOURCE_DATE_EPOCH (dist.mk sets it to the
# commit's time), gzip without a name or timestamp, zip without extra attributes, in UTC.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ $# -eq 4 ] || { echo "archive.sh: usage: archive.sh OS BINARY NAME OUTDIR" >&2; exit 2; }
os=$1 binary=$2 name=$3 outdir=$(cd "$4" && pwd)
epoch=${SOURCE_DATE_EPOCH:-0}
export TZ=UTC

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
exe=moonbridge
[ "$os" = windows ] && exe=moonbridge.exe
mkdir "$stage/$name"
install -m 0755 "$binary" "$stage/$name/$exe"
grep -v -e '^#' -e '^$' "$root/packaging/archive-files.txt" | while read -r doc; do
  install -D -m 0644 "$root/$doc" "$stage/$name/$doc"
done
if [ "$os" = linux ]; then
  install -m 0644 "$root/packaging/linux/moonbridge.service" "$stage/$name/"
fi
find "$stage/$name" -exec touch -h -d "@$epoch" {} +

cd "$stage"
if [ "$os" = windows ]; then
  rm -f "$outdir/$name.zip"
  find "$name" -print | LC_ALL=C sort | zip -q -X -@ "$outdir/$name.zip"
  echo "$outdir/$name.zip"
else
  tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner --format=gnu \
    -cf - "$name" | gzip -n -9 >"$outdir/$name.tar.gz"
  echo "$outdir/$name.tar.gz"
fi
