#!/usr/bin/env bash
# A sample of a real folder for `npm run bench:corpus`: every Nth file of SRC (in path order), hard-linked into
# DEST under the same relative paths (no file is copied or changed; DEST must be on SRC's file system). Prints DEST:
#
#   tree=$(bash bench/sample-tree.sh ~ /tmp/home-tenth 10 --unhide) && npm run bench:corpus -- "$tree" --recoll --sample 0
#
# --unhide writes each path component that starts with a dot with an underscore instead (.pyenv -> _pyenv): a home
# directory's toolchains and caches live in hidden folders, which filesift's default exclusions leave out (and
# Recoll reads); unhidden, the run measures what indexing their contents costs. Symbolic links are not followed.
set -euo pipefail

if [ $# -lt 2 ]; then
  echo "usage: bash bench/sample-tree.sh SRC DEST [N (default 10)] [--unhide]" >&2
  exit 2
fi
src=$(cd "$1" && pwd)
dest=$2
every=${3:-10}
unhide=${4:-}
case "$every" in '' | *[!0-9]* | 0) echo "N must be a positive integer: $every" >&2; exit 2 ;; esac
if [ -e "$dest" ] && [ -n "$(ls -A "$dest")" ]; then
  echo "$dest exists and is not empty" >&2
  exit 2
fi
mkdir -p "$dest"
dest=$(cd "$dest" && pwd)

count=0
while IFS= read -r -d '' file; do
  rel=${file#"$src"/}
  if [ "$unhide" = "--unhide" ]; then
    rel=$(printf '%s' "$rel" | sed -E 's#(^|/)\.#\1_#g')
  fi
  mkdir -p "$dest/$(dirname "$rel")"
  # A live folder changes while it is sampled (a cache's temporary file): one gone since the listing is skipped.
  if ! ln "$file" "$dest/$rel" 2>/dev/null; then
    echo "skipped $file (gone since the listing, or not linkable)" >&2
    continue
  fi
  count=$((count + 1))
done < <(cd "$src" && find "$src" -xdev -type f -print0 | sort -z | awk -v RS='\0' -v ORS='\0' -v n="$every" 'NR % n == 1 || n == 1')
echo "linked $count files (1 in $every of $src) into $dest" >&2
echo "$dest"
