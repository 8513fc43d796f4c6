#!/usr/bin/env bash
# Installs what `make serve` and `make test` need, each piece only when it is missing or at the
# wrong version, so a second run costs seconds. Sources: rustup, crates.io, npm, PyPI and
# Debian's apt, nothing else (trunk runs with --offline and never downloads a tool).
#
#   scripts/install-tools.sh build   the wasm target, trunk, wasm-bindgen-cli, npm packages
#   scripts/install-tools.sh test    the above, and Chromium, Mesa's Vulkan driver, ptxas,
#                                    cargo-fuzz, Open MPI, the VS Code extension's packages
#   scripts/install-tools.sh bench   the build tools, Chromium and ChromeDriver (bench-wasm.sh)
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
CARGO_FUZZ_VERSION=0.13.2
WASM_SPLIT_VERSION=0.2.4
PTXAS_PACKAGE=nvidia-cuda-nvcc-cu12==12.9.86
VENV=.tools/venv

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# The version of a crate pinned in Cargo.lock.
locked_version() {
  awk -v name="$1" '$0 == "name = \"" name "\"" { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock
}

wasm_target() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "rustup: adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
}

cargo_tool() { # crate binary version [cargo install flags...]
  local crate=$1 binary=$2 version=$3
  shift 3
  if ! "$binary" --version 2>/dev/null | grep -q " $version\$"; then
    say "cargo install $crate $version"
    cargo install "$crate" --version "$version" --force "$@"
  fi
}

npm_packages() {
  # npm ci only when package-lock.json changed since the last install.
  if [ ! -f e2e/node_modules/.package-lock.json ] || [ e2e/package-lock.json -nt e2e/node_modules/.package-lock.json ]; then
    say "npm ci (e2e/: Playwright, binaryen's wasm-opt, sirv)"
    (cd e2e && npm ci --no-audit --no-fund)
  fi
}

# The VS Code extension's packages (editors/vscode/): its client library, and for the tests and
# the packaging vsce, vscode-textmate, vscode-oniguruma, vscode-jsonrpc and esbuild. No install
# script runs: they would fetch keytar's and vsce-sign's prebuilt binaries from outside the
# registry, and packaging needs neither.
vscode_packages() {
  local dir=editors/vscode
  if [ ! -f $dir/node_modules/.package-lock.json ] || [ $dir/package-lock.json -nt $dir/node_modules/.package-lock.json ]; then
    say "npm ci (editors/vscode/: vscode-languageclient, vsce, vscode-textmate)"
    (cd $dir && npm ci --ignore-scripts --no-audit --no-fund)
  fi
}

apt_packages() {
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    say "apt-get install ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
  fi
}

ptxas() {
  if ! "$VENV/bin/python" -m pip show -q nvidia-cuda-nvcc-cu12 >/dev/null 2>&1; then
    say "pip install $PTXAS_PACKAGE (ptxas) into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --disable-pip-version-check "$PTXAS_PACKAGE"
  fi
}

build_tools() {
  wasm_target
  # trunk 0.22 needs rustc >= 1.96.1; 0.21.14 builds with this machine's toolchain.
  cargo_tool trunk trunk "$TRUNK_VERSION" --locked
  # Must equal the wasm-bindgen in Cargo.lock. Not --locked: one of its pinned
  # dependencies is missing from the registry mirror.
  cargo_tool wasm-bindgen-cli wasm-bindgen "$(locked_version wasm-bindgen)"
  # Splits the playground's module at its views loaded later (build-playground-module.sh); its
  # split points' runtime is the wasm_split_helpers in Cargo.lock. It has no --version.
  if ! cargo install --list | grep -qx "wasm_split_cli_support v$WASM_SPLIT_VERSION:"; then
    say "cargo install wasm_split_cli_support $WASM_SPLIT_VERSION"
    cargo install wasm_split_cli_support --version "$WASM_SPLIT_VERSION" --features build-binary --locked --force
  fi
  npm_packages
  cargo fetch --quiet
}

case "${1:-}" in
  build) build_tools ;;
  test)
    build_tools
    apt_packages chromium mesa-vulkan-drivers python3-numpy
    ptxas
    # Runs on stable with --sanitizer none (scripts/fuzz.sh); libFuzzer builds with g++.
    apt_packages g++
    # The CLI's @cluster runner: Open MPI, and libclang for the mpi crate's bindings.
    apt_packages openmpi-bin libopenmpi-dev libclang-dev
    cargo_tool cargo-fuzz cargo-fuzz "$CARGO_FUZZ_VERSION" --locked
    vscode_packages
    ;;
  bench)
    build_tools
    apt_packages chromium chromium-driver
    ;;
  *) echo "usage: $0 build|test|bench" >&2; exit 2 ;;
esac
