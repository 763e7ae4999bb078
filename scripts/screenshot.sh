#!/usr/bin/env bash
# Remake docs/discussion-page.png and docs/discussions-index.png: the demo's discussion page and its
# index in headless Chromium, 1400 px wide.
# Run scripts/demo.sh first; needs the Debian package chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
page="site/questions/${1:-slot-reallocation-governance}.html"
[ -f "$page" ] || { echo "no $page: run bash scripts/demo.sh first" >&2; exit 2; }
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,3400 \
  --virtual-time-budget=4000 --screenshot="docs/discussion-page.png" "file://$PWD/$page" 2>/dev/null
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1400,1000 \
  --virtual-time-budget=4000 --screenshot="docs/discussions-index.png" "file://$PWD/site/discussions.html" 2>/dev/null
echo "docs/discussion-page.png docs/discussions-index.png"
