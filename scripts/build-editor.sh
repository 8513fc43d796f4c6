#!/usr/bin/env bash
# Bundles the playground's editor (playground/editor/index.js: CodeMirror 6 from npm) into
# playground/editor/dist/editor.js with esbuild from npm, where the playground module imports
# it (wasm-bindgen copies it next to the module, so it loads with the playground and no other
# page), and the chunks it imports beside it, each named by its hash: later-HASH.js, what
# index.js loads the first time it is needed (search, completion, lint), and chunk-HASH.js, the
# code both share (build-playground-module.sh copies them beside every copy of editor.js). The
# npm packages are e2e/'s (scripts/install-tools.sh installs them). A second run with nothing
# changed costs a tenth of a second.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf playground/editor/dist
NODE_PATH="$PWD/e2e/node_modules" e2e/node_modules/.bin/esbuild editor=playground/editor/index.js \
  --bundle --format=esm --minify --splitting --chunk-names='[name]-[hash]' --log-level=warning \
  --outdir=playground/editor/dist
