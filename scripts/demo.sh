#!/usr/bin/env bash
# Set up, let the offline panel deliberate on an example question, build the site.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NO_MKDOCS_2_WARNING=1
.venv/bin/discuss run "${1:-slot-reallocation-governance}" --auto --panel offline
.venv/bin/discuss status
.venv/bin/mkdocs build --quiet
echo "site built in site/: open site/index.html in a browser (it works from disk)"
