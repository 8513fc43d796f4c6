# Tessera's two commands. Both install what they need first (scripts/install-tools.sh; only
# what is missing), so they work on a fresh machine and cost little the second time.
#
#   make serve   build the site and serve it on http://127.0.0.1:8080
#   make test    every check: fmt, clippy, cargo tests, the fuzzers briefly, the VS Code
#                extension (packaged, its grammar checked against the lexer), the wasm build,
#                the Python package (pytest, the notebook), Playwright

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
# cargo-installed tools and npm's wasm-opt (binaryen) come first on PATH, where trunk looks.
export PATH := $(CURDIR)/e2e/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
# Mesa's Vulkan driver warns without it.
export XDG_RUNTIME_DIR ?= /tmp
# The test command draws the same random cases every run, so a landing never fails on an
# unlucky draw; plain `cargo test` (or another seed) explores, and what fails is kept in the
# tests' regressions files, which are tried first on every run.
export PROPTEST_RNG_SEED ?= 2026

.PHONY: serve test tools test-tools editor lint cargo-test fuzz vscode site python e2e

serve: tools editor
	trunk serve --release --offline

test: test-tools editor lint cargo-test fuzz vscode site python e2e

tools:
	scripts/install-tools.sh build

test-tools:
	scripts/install-tools.sh test

# The playground's editor (CodeMirror 6 from npm, bundled by esbuild): the playground module
# imports it, so it is built before anything compiles that module.
editor:
	scripts/build-editor.sh

# The CLI's MPI runner is opt-in (a plain `cargo build -p tessera` needs no Open MPI); the test
# command builds, lints and tests it.
FEATURES := --features tessera/mpi

lint:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets --locked $(FEATURES) -- -D warnings
	cargo clippy -p site -p playground-wasm -p playground-worker -p puzzle-wasm --target wasm32-unknown-unknown --locked -- -D warnings

cargo-test:
	cargo test --workspace --locked $(FEATURES)

# Each cargo-fuzz target briefly (the corpora are replayed in cargo-test); longer by hand:
# scripts/fuzz.sh 600 pipeline
fuzz:
	scripts/fuzz.sh 15

# The VS Code extension (editors/vscode/): bundled and packaged into tessera.vsix (nothing is
# published), then its tests: the manifest, the bundle, and the grammar against the lexer's
# tokens through `tessera lsp`.
vscode:
	cargo build -p tessera --locked
	cd editors/vscode && npm run package && npm test

site:
	trunk build --release --offline

# The Python package (python/): built into .tools/pyvenv, then pytest and the tour notebook.
# After the site: a test compares a chart with the built docs page's.
python:
	scripts/python-test.sh

e2e:
	cd e2e && npx playwright test
