#!/usr/bin/env bash
# trunk's post-build hook (Trunk.toml): builds the playground module (crate playground-wasm)
# into the site's output as lazy/playground.js and lazy/playground_bg.wasm, which the site
# imports on first use (site/src/lazy.rs). Same profile as trunk's build; offline, like trunk.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${TRUNK_STAGING_DIR:?run by trunk (make serve, make test)}/lazy"
if [ "${TRUNK_PROFILE:-release}" = release ]; then
  cargo build --release --offline --locked -p playground-wasm --target wasm32-unknown-unknown
  wasm=target/wasm32-unknown-unknown/release/playground_wasm.wasm
else
  cargo build --offline --locked -p playground-wasm --target wasm32-unknown-unknown
  wasm=target/wasm32-unknown-unknown/debug/playground_wasm.wasm
fi
wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name playground "$wasm"
if [ "${TRUNK_PROFILE:-release}" = release ]; then
  # The same optimisation trunk gives the site's own module (data-wasm-opt="z").
  wasm-opt -Oz "$out/playground_bg.wasm" -o "$out/playground_bg.wasm"
fi
