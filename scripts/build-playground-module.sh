#!/usr/bin/env bash
# trunk's post-build hook (Trunk.toml): builds the playground's two modules into the site's
# output, each named by its content hash, so a cache never serves an old module after a deploy:
# - lazy/playground-HASH.js (crate playground-wasm): the playground's page, which the site
#   imports on first use (site/src/lazy.rs) and /play opened directly boots alone;
# - lazy/worker-HASH.js (crate playground-worker): the simulator and the WGSL writer, which the
#   playground loads in a Web Worker when first needed (playground/src/run/worker.rs);
# - lazy/puzzle-HASH.js (crate puzzle-wasm): a puzzle's workbench, which a puzzle's docs page
#   imports.
# The built index.html names all three (window.tesseraPlayground, window.tesseraWorker,
# window.tesseraPuzzles). The editor's bundle is named by its hash too, and then the service
# worker (sw.js, e2e/scripts/service-worker.mjs) is written over the finished build. Same profile
# as trunk's build (`web` for a release: the size-optimised one); offline, like trunk.
set -euo pipefail
cd "$(dirname "$0")/.."

out="${TRUNK_STAGING_DIR:?run by trunk (make serve, make test)}/lazy"
# The editor the page's module imports, up to date (trunk serve rebuilds on every change).
scripts/build-editor.sh
if [ "${TRUNK_PROFILE:-release}" = release ]; then
  profile=web
  cargo build --profile web --offline --locked -p playground-wasm -p playground-worker -p puzzle-wasm --target wasm32-unknown-unknown
else
  profile=debug
  cargo build --offline --locked -p playground-wasm -p playground-worker -p puzzle-wasm --target wasm32-unknown-unknown
fi
rm -rf "$out"

# Binds crate file $1 as $2-HASH in $out; prints the module's URL.
bind() {
  local wasm="target/wasm32-unknown-unknown/$profile/$1.wasm"
  local name
  name="$2-$(sha256sum "$wasm" | cut -c1-16)"
  wasm-bindgen --target web --no-typescript --out-dir "$out" --out-name "$name" "$wasm" >&2
  if [ "$profile" = web ]; then
    # The same optimisation trunk gives the site's own module (data-wasm-opt="z").
    wasm-opt -Oz "$out/${name}_bg.wasm" -o "$out/${name}_bg.wasm" >&2
  fi
  echo "/lazy/$name.js"
}
page=$(bind playground_wasm playground)
worker=$(bind playground_worker worker)
puzzles=$(bind puzzle_wasm puzzle)
script="<script>window.tesseraPlayground = '$page'; window.tesseraWorker = '$worker'; window.tesseraPuzzles = '$puzzles';</script>"
sed -i "s|</head>|$script</head>|" "$TRUNK_STAGING_DIR/index.html"

# The editor's bundle, which wasm-bindgen copies as snippets/CRATE-ID/editor/dist/editor.js (the
# crate's id, not the content's), gets its content's hash too, and the modules' `import` lines
# fetch it by that name (the imports object keeps the old name: the wasm asks for it by that).
for editor in "$out"/snippets/*/editor/dist/editor.js; do
  [ -e "$editor" ] || continue
  hashed="editor-$(sha256sum "$editor" | cut -c1-16).js"
  mv "$editor" "$(dirname "$editor")/$hashed"
  sed -i "/^import /s|editor/dist/editor\.js\"|editor/dist/$hashed\"|" "$out"/*.js
done

# Last, once every file is in place: the service worker that keeps the site readable offline.
node e2e/scripts/service-worker.mjs "$TRUNK_STAGING_DIR"
