"""Draw docs/architecture.svg, the layers of docs/architecture.md, from the imports (a test fails while it is stale)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from test_layers import CHART, picture  # noqa: E402

CHART.write_text(picture(), encoding="utf-8")
