#!/usr/bin/env bash
# trunk's post-build hook (Trunk.toml): builds the playground's modules into the site's output,
# and copies the docs' files there, each named by its content hash, so a cache never serves an
# old one after a deploy:
# - lazy/playground-HASH.js (crate playground-wasm): the playground's page, which the site
#   imports on first use (site/src/lazy.rs) and /play opened directly boots alone;
# - lazy/worker-HASH.js (crate playground-worker): the simulator and the WGSL writer, which the
#   playground loads in a Web Worker when first needed (playground/src/run/worker.rs);
# - lazy/puzzle-HASH.js (crate puzzle-wasm): a puzzle's workbench, which a puzzle's docs page
#   imports;
# - lazy/docs-HASH/ (written by site/build.rs): the docs' pages, which the site fetches when one
#   is opened, and their words, fetched on the first search.
# The built index.html names them all (window.tesseraPlayground, window.tesseraWorker,
# window.tesseraPuzzles, window.tesseraDocs). The editor's bundle is named by its hash too, and then the service
# worker (sw.js, e2e/scripts/service-worker.mjs) is written over the finished build. Same profile
# as trunk's build (`web` for a release: the size-optimised one); offline, like trunk.
set -euo pipefail
# A failure inside $(...) (a module's build) fails the script too.
shopt -s inherit_errexit
cd "$(dirname "$0")/.."

out="${TRUNK_STAGING_DIR:?run by trunk (make serve, make test)}/lazy"
# The editor the page's module imports, up to date (trunk serve rebuilds on every change).
scripts/build-editor.sh
if [ "${TRUNK_PROFILE:-release}" = release ]; then
  profile=web
  cargo_profile=(--profile web)
else
  profile=debug
  cargo_profile=()
fi
cargo build ${cargo_profile[@]+"${cargo_profile[@]}"} --offline --locked -p playground-wasm -p playground-worker -p puzzle-wasm --target wasm32-unknown-unknown
rm -rf "$out"
mkdir -p "$out"

# Binds crate file $1 as $2-HASH in $out; prints the module's URL. A module with split points
# (leptos's `#[lazy]`: the playground's views loaded later, playground/src/run/later.rs) is
# split there first by wasm-split-cli, and its parts go in a folder of their own named by the
# hash, $2-HASH/$2.js beside its link module (__wasm_split.js) and the parts it fetches, which
# find one another by relative paths.
bind() {
  local wasm="target/wasm32-unknown-unknown/$profile/$1.wasm"
  local name dir=$out url
  name="$2-$(sha256sum "$wasm" | cut -c1-16)"
  if grep -q __wasm_split_placeholder__ "$wasm"; then
    dir="$out/$name"
    url="/lazy/$name/$2.js"
    name=$2
    mkdir -p "$dir"
    wasm-split-cli --target web --out-name "$name" "$wasm" "$dir" >&2
    wasm=$dir/$name.wasm
  else
    url="/lazy/$name.js"
  fi
  # --keep-lld-exports: the parts reach the module's function table by its export.
  wasm-bindgen --target web --no-typescript --keep-lld-exports --out-dir "$dir" --out-name "$name" "$wasm" >&2
  if [ "$wasm" = "$dir/$name.wasm" ]; then rm "$wasm"; fi
  if [ "$profile" = web ]; then
    # The same optimisation trunk gives the site's own module (data-wasm-opt="z"), for the
    # module and each part split from it.
    for part in "$dir/${name}_bg.wasm" $([ "$dir" = "$out" ] || find "$dir" -maxdepth 1 -name '*.wasm' ! -name "${name}_bg.wasm"); do
      wasm-opt -Oz --enable-bulk-memory --enable-mutable-globals --enable-nontrapping-float-to-int \
        --enable-sign-ext --enable-reference-types --enable-multivalue "$part" -o "$part" >&2
    done
  fi
  echo "$url"
}
page=$(bind playground_wasm playground)
worker=$(bind playground_worker worker)
puzzles=$(bind puzzle_wasm puzzle)

# The docs' files, from the site's build script as trunk's build (just done) ran it: cargo names
# its output folder, fresh, without building again.
site_out=$(cargo build ${cargo_profile[@]+"${cargo_profile[@]}"} --offline --locked -p site --target wasm32-unknown-unknown --message-format=json |
  node -e '
    const lines = require("fs").readFileSync(0, "utf8").split("\n").filter(Boolean).map(JSON.parse);
    const run = lines.find(m => m.reason === "build-script-executed" && /(\/site#|#site@)/.test(m.package_id));
    if (!run) { console.error("no build-script output for the site"); process.exit(1); }
    console.log(run.out_dir);')
docs_hash=$(cd "$site_out/docs" && find . -type f | sort | xargs sha256sum | sha256sum | cut -c1-16)
cp -r "$site_out/docs" "$out/docs-$docs_hash"
docs="/lazy/docs-$docs_hash"

script="<script>window.tesseraPlayground = '$page'; window.tesseraWorker = '$worker'; window.tesseraPuzzles = '$puzzles'; window.tesseraDocs = '$docs';</script>"
sed -i "s|</head>|$script</head>|" "$TRUNK_STAGING_DIR/index.html"

# The editor's bundle, which wasm-bindgen copies as snippets/CRATE-ID/editor/dist/editor.js (the
# crate's id, not the content's), gets its content's hash too, and the modules' `import` lines
# fetch it by that name (the imports object keeps the old name: the wasm asks for it by that).
# The chunks it imports (scripts/build-editor.sh), already named by their hashes, go beside it.
for editor in $(find "$out" -path '*/snippets/*/editor/dist/editor.js'); do
  cp playground/editor/dist/*-*.js "$(dirname "$editor")/"
  hashed="editor-$(sha256sum "$editor" | cut -c1-16).js"
  mv "$editor" "$(dirname "$editor")/$hashed"
  find "$out" -name '*.js' ! -path '*/snippets/*' -exec sed -i "/^import /s|editor/dist/editor\.js\"|editor/dist/$hashed\"|" {} +
done

# Last, once every file is in place: the service worker that keeps the site readable offline.
node e2e/scripts/service-worker.mjs "$TRUNK_STAGING_DIR"
