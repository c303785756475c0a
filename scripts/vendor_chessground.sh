#!/usr/bin/env bash
# Re-vendor lichess's chessground (GPL-3.0-or-later, like enoch) into the web page's static files.
# Usage: scripts/vendor_chessground.sh [VERSION]   (default: the version VENDOR.txt names)
# Fetches the package with `npm pack` (no build step, no node_modules), copies its pre-built
# files and licence, and writes VENDOR.txt with the exact version and each file's sha256.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=src/enoch/web/static/vendor/chessground
version=${1:-$(sed -n 's/^version: //p' "$dest/VENDOR.txt" 2>/dev/null || true)}
version=${version:-10.4.1}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "@lichess-org/chessground@$version" >/dev/null && tar xzf ./*.tgz)
pkg="$work/package"
got=$(node -p "require('$pkg/package.json').version" 2>/dev/null || sed -n 's/.*"version": "\(.*\)".*/\1/p' "$pkg/package.json" | head -1)
if [ "$got" != "$version" ]; then
  echo "error: npm gave chessground $got, not $version" >&2
  exit 1
fi
mkdir -p "$dest"
cp "$pkg/dist/chessground.min.js" "$pkg/assets/chessground.base.css" \
   "$pkg/assets/chessground.brown.css" "$pkg/assets/chessground.cburnett.css" "$dest/"
cp "$pkg/LICENSE" "$dest/LICENSE.txt"
{
  echo "package: @lichess-org/chessground"
  echo "version: $version"
  echo "license: GPL-3.0-or-later (LICENSE.txt)"
  echo "source: https://github.com/lichess-org/chessground (npm pack @lichess-org/chessground@$version)"
  echo "files (sha256):"
  (cd "$dest" && sha256sum chessground.min.js chessground.base.css chessground.brown.css \
    chessground.cburnett.css LICENSE.txt | sed 's/^/  /')
} > "$dest/VENDOR.txt"
echo "vendored chessground $version into $dest"
