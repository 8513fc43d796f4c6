#!/usr/bin/env bash
# Bundles the playground's editor (playground/editor/index.js: CodeMirror 6 from npm) into
# playground/editor/dist/editor.js with esbuild from npm, where the playground module imports
# it (wasm-bindgen copies it next to the module, so it loads with the playground and no other
# page). The npm packages are e2e/'s (scripts/install-tools.sh installs them). A second run
# with nothing changed costs a tenth of a second.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_PATH="$PWD/e2e/node_modules" e2e/node_modules/.bin/esbuild playground/editor/index.js \
  --bundle --format=esm --minify --log-level=warning --outfile=playground/editor/dist/editor.js
