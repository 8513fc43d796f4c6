#!/usr/bin/env bash
# trunk's post-build hook (Trunk.toml): the site serves its own source, as the footer says
# (tessera-source.tar.gz): the files git tracks, as they are in the working tree (edits not
# yet committed included, through `git stash create`), without the docs' screenshots (the
# README's images, 2 MB). Outside a git checkout, the tree itself, without what builds make.
# Not in the service worker's cache: a reader who wants it downloads it.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${TRUNK_STAGING_DIR:?run by trunk (make serve, make test)}/tessera-source.tar.gz"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  tree="$(git stash create 2>/dev/null || true)"
  git archive --format=tar.gz --prefix=tessera/ "${tree:-HEAD}" -- . ':!docs/*.png' >"$out"
else
  tar -czf "$out" --exclude=./target --exclude=./dist --exclude='*/node_modules' \
    --exclude=./.tools --exclude='./docs/*.png' --transform 's,^\.,tessera,' .
fi
