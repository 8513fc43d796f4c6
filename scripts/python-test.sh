#!/usr/bin/env bash
# The Python package's tests (`make test`): python/requirements-test.txt into a virtual
# environment (.tools/pyvenv, from PyPI, again only when the file changed), the package built
# and installed into it as the README installs it (`pip install ./python`, here a debug build
# that shares the workspace's target/), then pytest, the notebook included.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.tools/pyvenv
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
if [ ! -f "$VENV/.requirements" ] || ! cmp -s python/requirements-test.txt "$VENV/.requirements"; then
  "$VENV/bin/pip" install -q --disable-pip-version-check -r python/requirements-test.txt
  cp python/requirements-test.txt "$VENV/.requirements"
fi
# maturin from the environment (no build isolation: nothing downloaded at build time).
PATH="$PWD/$VENV/bin:$PATH" pip install -q --disable-pip-version-check --no-build-isolation \
  --force-reinstall --no-deps ./python --config-settings=build-args='--profile dev --locked'
"$VENV/bin/python" -m pytest -q -p no:cacheprovider python/tests "$@"
