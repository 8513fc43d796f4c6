#!/usr/bin/env bash
# trunk's post-build hook (Trunk.toml): builds the playground module (crate playground-wasm)
# into the site's output as lazy/playground-HASH.js and lazy/playground-HASH_bg.wasm, which the
# site imports on first use (site/src/lazy.rs). HASH is the module's content hash, so a cache
# never serves an old module after a deploy; the built index.html names the file
# (window.tesseraPlayground). Same profile as trunk's build (`web` for a release: the size-optimised
# one); offline, like trunk.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${TRUNK_STAGING_DIR:?run by trunk (make serve, make test)}/lazy"
# The editor the module imports, up to date (trunk serve rebuilds on every change).
scripts/build-editor.sh
if [ "${TRUNK_PROFILE:-release}" = release ]; then
  cargo build --profile web --offline --locked -p playground-wasm --target wasm32-unknown-unknown
  wasm=target/wasm32-unknown-unknown/web/playground_wasm.wasm
else
  cargo build --offline --locked -p playground-wasm --target wasm32-unknown-unknown
  wasm=target/wasm32-unknown-unknown/debug/playground_wasm.wasm
fi
name="playground-$(sha256sum "$wasm" | cut -c1-16)"
rm -rf "$out"
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name "$name" "$wasm"
if [ "${TRUNK_PROFILE:-release}" = release ]; then
  # The same optimisation trunk gives the site's own module (data-wasm-opt="z").
  wasm-opt -Oz "$out/${name}_bg.wasm" -o "$out/${name}_bg.wasm"
fi
script="<script>window.tesseraPlayground = '/lazy/$name.js';</script>"
sed -i "s|</head>|$script</head>|" "$TRUNK_STAGING_DIR/index.html"
