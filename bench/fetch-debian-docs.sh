#!/usr/bin/env bash
# A heterogeneous real-world corpus for `npm run bench:index`: Debian documentation packages (HTML, plain text,
# PDF, man pages, source examples, gzip'd files), downloaded with apt and unpacked into a temporary folder (never
# into the repository; nothing is installed). Prints the folder to index on stdout:
#
#   corpus=$(bash bench/fetch-debian-docs.sh) && npm run bench:index -- "$corpus" --limit 3000
#
# Needs apt (Debian or Ubuntu) with package lists (`apt-get update` as root if `apt-get download` finds nothing).
# An argument replaces the default package list; DEST=/some/dir keeps the download somewhere else than /tmp.
set -euo pipefail

packages=("$@")
if [ ${#packages[@]} -eq 0 ]; then
  packages=(python3.11-doc postgresql-doc-15 debian-reference-en gnuplot-doc asymptote-doc git-doc sqlite3-doc)
fi

dest=${DEST:-$(mktemp -d -t filesift-debian-docs-XXXXXX)}
mkdir -p "$dest/debs" "$dest/tree"
cd "$dest/debs"
# One at a time, so a package missing from this release is reported and skipped, not fatal.
for package in "${packages[@]}"; do
  apt-get download -q "$package" >&2 || echo "skipped $package (not available here)" >&2
done
shopt -s nullglob
debs=(*.deb)
if [ ${#debs[@]} -eq 0 ]; then
  echo "no package could be downloaded (run apt-get update?)" >&2
  exit 1
fi
for deb in "${debs[@]}"; do dpkg-deb -x "$deb" "$dest/tree"; done
files=$(find "$dest/tree" -type f | wc -l)
bytes=$(du -sb "$dest/tree" | cut -f1)
echo "unpacked ${#debs[@]} packages: $files files, $((bytes / 1000000)) MB in $dest/tree" >&2
echo "$dest/tree"
