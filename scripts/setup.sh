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
# --locked: fail if pyproject.toml and uv.lock disagree; --inexact: keep uv itself in the venv.
.venv/bin/uv sync --quiet --locked --inexact --extra test
