#!/usr/bin/env bash
# Run the test suite in fresh venvs with the newest and the lowest versions pyproject.toml's ranges allow
# (not the lock): what `pip install discuss-panel` gives a user tomorrow, and the oldest it may keep.
#   bash scripts/test_ranges.sh            both, then the versions each used
#   bash scripts/test_ranges.sh newest     one of them; extra arguments go to pytest
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh  # for uv itself
which="${1:-both}"; shift || true
run() {
  local resolution="$1"; shift
  local venv=".venv-$resolution"
  rm -rf "$venv"
  .venv/bin/uv venv --quiet --python .venv/bin/python "$venv"
  VIRTUAL_ENV="$venv" .venv/bin/uv pip install --quiet --refresh --compile-bytecode --resolution "$resolution" -e ".[test]"
  echo "== $resolution: $(VIRTUAL_ENV="$venv" .venv/bin/uv pip freeze 2>/dev/null \
    | grep -iE '^(litellm|httpx|h11|typer|ruamel.yaml|pyyaml|jinja2|mkdocs|mkdocs-material|pydantic|mcp|openai)==' | tr '\n' ' ')"
  "$venv/bin/python" -m compileall -q -j 0 src > /dev/null
  "$venv/bin/python" -m pytest -q -n 4 -p no:cacheprovider "$@"
}
case "$which" in
  newest) run highest "$@" ;;
  lowest) run lowest-direct "$@" ;;
  both) run highest "$@"; run lowest-direct "$@" ;;
  *) echo "usage: $0 [newest|lowest|both] [pytest arguments]" >&2; exit 2 ;;
esac
