#!/usr/bin/env bash
# Create .venv with discuss and its test tools at the versions uv.lock pins; quiet when already done.
# Refresh the lock after changing a range in pyproject.toml: .venv/bin/uv lock (or `uv lock --upgrade`).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
UV_VERSION=0.13.9
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
if ! .venv/bin/uv --version 2>/dev/null | grep -q " $UV_VERSION"; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check "uv==$UV_VERSION"
fi
# --locked: fail if pyproject.toml and uv.lock disagree; --inexact: keep uv itself in the venv;
# --compile-bytecode: as pip does, so no command compiles its imports again (where PYTHONDONTWRITEBYTECODE
# is set, that was a second of every `discuss` process).
.venv/bin/uv sync --quiet --locked --inexact --extra test --compile-bytecode
# Our own sources, installed as a link to src/, likewise (stale files are recompiled by their timestamps).
.venv/bin/python -m compileall -q -j 0 src > /dev/null
