#!/usr/bin/env bash
# Set up and run the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# Lint and type check first: cheap, and they name the line.
.venv/bin/ruff check src tests scripts
.venv/bin/mypy
# Four workers on two cores: much of the suite waits on servers, subprocesses and timeouts, not the CPU.
.venv/bin/python -m pytest -n 4 "$@"
